// Decoding the `security.capability` xattr (struct vfs_cap_data / vfs_ns_cap_data, little endian):
//   v1: magic 0x01000000, one 32-bit permitted/inheritable pair          (12 bytes)
//   v2: magic 0x02000000, two pairs (64 capabilities)                     (20 bytes)
//   v3: magic 0x03000000, two pairs + rootid (namespaced file capability) (24 bytes)
// The low bit of the magic word (VFS_CAP_FLAGS_EFFECTIVE) is the "+e" flag.

export interface FileCapabilities {
  version: 1 | 2 | 3;
  effective: boolean;
  permitted: bigint;
  inheritable: bigint;
  /** v3 only: the uid that is root in the user namespace the capabilities belong to. */
  rootid?: number;
}

export class CapabilityXattrError extends Error {}

const VFS_CAP_REVISION_MASK = 0xff000000;
const VFS_CAP_FLAGS_EFFECTIVE = 0x000001;

export function parseCapabilityXattr(bytes: Uint8Array): FileCapabilities {
  if (bytes.length < 4) throw new CapabilityXattrError(`security.capability is ${bytes.length} bytes, too short`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  const revision = (magic & VFS_CAP_REVISION_MASK) >>> 0;
  const effective = (magic & VFS_CAP_FLAGS_EFFECTIVE) !== 0;
  const u32 = (off: number) => BigInt(view.getUint32(off, true));
  if ((magic & ~(VFS_CAP_REVISION_MASK | VFS_CAP_FLAGS_EFFECTIVE)) !== 0) {
    throw new CapabilityXattrError(`security.capability has unknown flags 0x${magic.toString(16)}`);
  }
  switch (revision) {
    case 0x01000000:
      expectLength(bytes, 12, 1);
      return { version: 1, effective, permitted: u32(4), inheritable: u32(8) };
    case 0x02000000:
      expectLength(bytes, 20, 2);
      return { version: 2, effective, permitted: u32(4) | (u32(12) << 32n), inheritable: u32(8) | (u32(16) << 32n) };
    case 0x03000000:
      expectLength(bytes, 24, 3);
      return { version: 3, effective, permitted: u32(4) | (u32(12) << 32n), inheritable: u32(8) | (u32(16) << 32n), rootid: view.getUint32(20, true) };
    default:
      throw new CapabilityXattrError(`security.capability has unknown revision 0x${revision.toString(16)}`);
  }
}

function expectLength(bytes: Uint8Array, want: number, version: number): void {
  if (bytes.length !== want) throw new CapabilityXattrError(`security.capability v${version} must be ${want} bytes, found ${bytes.length}`);
}

/** Encodes (for tests and fixtures) the xattr `setcap` would write. */
export function encodeCapabilityXattr(c: FileCapabilities): Uint8Array {
  const len = c.version === 1 ? 12 : c.version === 2 ? 20 : 24;
  const out = new Uint8Array(len);
  const view = new DataView(out.buffer);
  view.setUint32(0, (c.version << 24) | (c.effective ? 1 : 0), true);
  const lo = (v: bigint) => Number(v & 0xffffffffn);
  const hi = (v: bigint) => Number((v >> 32n) & 0xffffffffn);
  view.setUint32(4, lo(c.permitted), true);
  view.setUint32(8, lo(c.inheritable), true);
  if (c.version >= 2) {
    view.setUint32(12, hi(c.permitted), true);
    view.setUint32(16, hi(c.inheritable), true);
  }
  if (c.version === 3) view.setUint32(20, c.rootid ?? 0, true);
  return out;
}
