// Files embedded into the executable with `import x from "./f.c" with { type: "text" }`.
declare module "*.c" {
  const text: string;
  export default text;
}
