/* Seed for the V8 fuzz harnesses: the v8dbg_ values ptop reads, as Node.js 22.23.3 (V8 12.4) on
 * amd64 exports them: later spellings of some symbols, JSFunction::code and Code's instructions
 * exported, Code's deoptimization data and position table not (derived from its wrapper and
 * instruction stream), their trusted-space array types. Compiled into fuzz_v8name22 and, by
 * test/live/ptop-fuzz.test.ts, into a small shared object that seeds fuzz_v8elf; 4 bytes each, as in
 * v8_seed_layout.c. */
#define V8DBG __attribute__((no_sanitize("address"))) const int
V8DBG v8dbg_SystemPointerSize = 8;
V8DBG v8dbg_HeapObjectTag = 1;
V8DBG v8dbg_HeapObjectTagMask = 3;
V8DBG v8dbg_SmiTag = 0;
V8DBG v8dbg_SmiTagMask = 1;
V8DBG v8dbg_SmiShiftSize = 31;
V8DBG v8dbg_SmiValueShift = 1;
V8DBG v8dbg_off_fp_function = -16;
V8DBG v8dbg_off_fp_context = -8;
V8DBG v8dbg_off_fp_bytecode_array = -32;
V8DBG v8dbg_class_HeapObject__map__Map = 0;
V8DBG v8dbg_class_Map__instance_type__uint16_t = 12;
V8DBG v8dbg_class_JSFunction__shared__SharedFunctionInfo = 32;
V8DBG v8dbg_class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_ = 16;
V8DBG v8dbg_class_SharedFunctionInfo__script__Tagged_HeapObject_ = 32;
V8DBG v8dbg_class_Script__name__Object = 16;
V8DBG v8dbg_class_Script__source__Object = 8;
V8DBG v8dbg_class_Script__line_ends__Object = 56;
V8DBG v8dbg_class_String__length__int32_t = 12;
V8DBG v8dbg_class_SeqOneByteString__chars__char = 16;
V8DBG v8dbg_class_SeqTwoByteString__chars__char = 16;
V8DBG v8dbg_class_ConsString__first__String = 16;
V8DBG v8dbg_class_ConsString__second__String = 24;
V8DBG v8dbg_class_ThinString__actual__String = 16;
V8DBG v8dbg_class_SlicedString__parent__String = 16;
V8DBG v8dbg_class_SlicedString__offset__SMI = 24;
V8DBG v8dbg_class_FixedArrayBase__length__SMI = 8;
V8DBG v8dbg_class_FixedArray__data__uintptr_t = 16;
V8DBG v8dbg_FirstNonstringType = 128;
V8DBG v8dbg_StringRepresentationMask = 7;
V8DBG v8dbg_StringEncodingMask = 8;
V8DBG v8dbg_SeqStringTag = 0;
V8DBG v8dbg_ConsStringTag = 1;
V8DBG v8dbg_ThinStringTag = 5;
V8DBG v8dbg_SlicedStringTag = 3;
V8DBG v8dbg_OneByteStringTag = 8;
V8DBG v8dbg_scopeinfo_idx_ncontextlocals = 2;
V8DBG v8dbg_scopeinfo_idx_first_vars = 3;
V8DBG v8dbg_type_JSFunction__JS_FUNCTION_TYPE = 2066;
V8DBG v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE = 274;
V8DBG v8dbg_type_Script__SCRIPT_TYPE = 167;
V8DBG v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE = 272;
V8DBG v8dbg_type_FixedArray__FIXED_ARRAY_TYPE = 174;
V8DBG v8dbg_type_ByteArray__BYTE_ARRAY_TYPE = 186;
V8DBG v8dbg_type_WeakFixedArray__WEAK_FIXED_ARRAY_TYPE = 247;
V8DBG v8dbg_type_Code__CODE_TYPE = 206;
V8DBG v8dbg_type_BytecodeArray__BYTECODE_ARRAY_TYPE = 205;
V8DBG v8dbg_class_JSFunction__raw_feedback_cell__Tagged_FeedbackCell_ = 48;
V8DBG v8dbg_class_JSFunction__prototype_or_initial_map__Tagged_HeapObject_ = 56;
V8DBG v8dbg_DeoptimizationDataLiteralArrayIndex = 2;
V8DBG v8dbg_DeoptimizationDataInliningPositionsIndex = 7;
V8DBG v8dbg_type_JSAtomicsCondition__JS_ATOMICS_CONDITION_TYPE = 2103;
V8DBG v8dbg_type_TrustedFixedArray__TRUSTED_FIXED_ARRAY_TYPE = 213;
V8DBG v8dbg_type_TrustedByteArray__TRUSTED_BYTE_ARRAY_TYPE = 212;
V8DBG v8dbg_LastJSFunctionType = 2082;
V8DBG v8dbg_class_JSFunction__code__Tagged_Code_ = 24;
V8DBG v8dbg_class_Code__wrapper__Tagged_CodeWrapper_ = 24;
V8DBG v8dbg_class_Code__instruction_stream__Tagged_InstructionStream_ = 32;
V8DBG v8dbg_class_Code__instruction_start__Address = 40;
V8DBG v8dbg_class_Code__instruction_size__int = 52;
