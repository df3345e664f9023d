#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "Tile/IR/TileDialect.td"
include "Tile/IR/TileTypes.td"
include "Tile/IR/TileAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this CTA in the launch grid along an axis";
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of CTAs in the launch grid along an axis";
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ArangeOp : Tile_Op<"arange", [Pure]> {
  let summary = "the 1-D tile [start, start + 1, ..., end - 1] of i32";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "a tile whose every element is the scalar operand";
  let arguments = (ins AnyType:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat the size-1 dimensions of a tile";
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a dimension of size 1 at `axis`";
  let arguments = (ins AnyRankedTensor:$src, I32Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "pointer plus an element offset (scalar or elementwise on tiles)";
  let arguments = (ins AnyType:$ptr, AnyType:$offset);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
}

def Tile_PtrCastOp : Tile_Op<"ptr_cast", [Pure]> {
  let summary = "the same address as a pointer to another element type";
  let description = [{
    A scalar pointer read as a pointer to `result`'s element type (the
    language's `bitcast(p, *T)`): no code, the address is kept; offsets added
    to the result count in its elements. Alignment is carried in bytes.
  }];
  let arguments = (ins Tile_PtrType:$src);
  let results = (outs Tile_PtrType:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    OptionalTypesMatchWith<"other has the result type", "result", "other", "$_self">,
                                   MemoryEffects<[MemRead]>]> {
  let summary = "load through a pointer or a tile of pointers";
  let description = [{
    Lanes whose `mask` is false read nothing and yield `other` (zero when absent).
  }];
  let arguments = (ins AnyType:$ptr, Optional<AnyType>:$mask, Optional<AnyType>:$other);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`mask` $mask^)? (`other` $other^)? attr-dict `:` type($ptr) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store through a pointer or a tile of pointers; masked-off lanes write nothing";
  let description = [{
    With the `streaming` unit attribute the stores carry PTX's streaming
    cache hint (`st.global.cs`: evict first), for data that no kernel reads
    back soon (a recurrence's intermediate states).
  }];
  let arguments = (ins AnyType:$ptr, AnyType:$value, Optional<AnyType>:$mask,
                       UnitAttr:$streaming);
  let assemblyFormat = [{
    $ptr `,` $value (`mask` $mask^)? attr-dict `:` type($ptr) `,` type($value) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic read-modify-write (add, max) on global memory; returns the old value";
  let arguments = (ins StrAttr:$kind, AnyType:$ptr, AnyType:$value, Optional<AnyType>:$mask);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $ptr `,` $value (`mask` $mask^)? attr-dict `:` type($ptr) `,` type($value) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_WaitPriorKernelOp : Tile_Op<"wait_prior_kernel", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "an @early_launch kernel waits for the kernel launched before it";
  let description = [{
    Lowers to `griddepcontrol.wait`: the prior kernel on the stream has ended
    and its memory is visible. With `launch_dependents` (the frontend's
    default, unless the kernel places its own `tile.launch_dependents`), it
    then lets the next kernel launch, in the same inline assembly block.
    Memory effects on everything, so no load or store moves across it. Only
    in a func with `tile.early_launch`.
  }];
  let arguments = (ins UnitAttr:$launch_dependents);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_LaunchDependentsOp : Tile_Op<"launch_dependents", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the next kernel on the stream, launched early, may start";
  let description = [{
    Lowers to `griddepcontrol.launch_dependents`: once every CTA of the kernel
    has run it (or exited), the next kernel on the stream, if launched early,
    may start. Memory effects on everything, so it keeps its place among the
    loads and stores. Only in a func with `tile.early_launch`.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis (sum, max, min, argmax, argmin)";
  let description = [{
    The result drops `axis`; reducing the only axis of a 1-D tile gives a scalar.
    argmax and argmin return i32 indices; the lowest index wins ties.
  }];
  let arguments = (ins AnyRankedTensor:$src, I32Attr:$axis, StrAttr:$kind);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "move a tile to another layout (same shape and element type)";
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order, in another shape";
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "swap the two dimensions of a 2-D tile";
  let description = [{
    No data moves: the result's layout is the source's with its two dimensions
    swapped (tile-assign-layouts), so every thread keeps its registers.
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure]> {
  let summary = "matrix product on tensor cores: a [M, K] times b [K, N] plus acc [M, N]";
  let description = [{
    a and b are bf16 (or both f16), acc and the result f32. M is a multiple of
    16, N of 8 and K of 16 (one mma.sync m16n8k16 per 16 x 8 x 16 block). The
    operands may be in any layout (the lowering stages them in shared memory);
    acc and the result are in the accumulator layout of `dotLayout`
    (Tile/Layout/BlockedLayout.h): #tile.blocked<spt = [1, 2], tpw = [8, 4],
    order = [1, 0]>, warps along N first.
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b, AnyRankedTensor:$acc);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FpTruncOp : Tile_Op<"fp_trunc", [Pure]> {
  let summary = "narrow a float to an 8- or 4-bit float with explicit rounding and saturation";
  let description = [{
    `rounding` is `rne` (the only mode the hardware narrow conversions offer);
    `saturate` clamps to the finite range (NaN stays NaN where the format has one).
  }];
  let arguments = (ins AnyType:$src, StrAttr:$rounding, BoolAttr:$saturate);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_QuantizeOp : Tile_Op<"quantize", [Pure]> {
  let summary = "quantization by scheme: block-scaled FP4 (nvfp4, mxfp4) or FP8 (fp8, fp8_group, fp8_group_ue8m0)";
  let description = [{
    `nvfp4`: blocks of 16, scale sf = e4m3(gs * amax / 6), values
    e2m1(x * (gs / float(sf))) (0 when sf is 0), with the f32 global scale gs.
    `mxfp4`: blocks of 32, scale 2^(floor(log2(amax)) - 2) stored as E8M0,
    values e2m1(x / scale). Values are E2M1 codes packed two per byte (i8),
    the even element in the low nibble; rounding is to nearest even with
    saturation. Lowering uses cvt.rn.satfinite.e2m1x2.f32 where the target
    has it and an exact software rounding elsewhere: the same bits.

    `fp8`: static per-tensor FP8; `scale` is the f32 dequantization scale,
    values rne(clamp(x / scale, -fmax, fmax)) of the values' type (E4M3,
    fmax 448, or E5M2, fmax 57344); no scales result.
    `fp8_group`: per-token groups of 128 along the last dimension, scales
    s = max(amax(group), 1e-10) / fmax (f32, one per group), values
    rne(clamp(x / s)); `fp8_group_ue8m0` rounds s up to a power of two
    first. The FP8 schemes are expanded into reductions, IEEE divisions and
    tile.fp_trunc by tile-expand-fp8 before layouts are assigned.
  }];
  let arguments = (ins AnyRankedTensor:$src, Optional<F32>:$scale,
                       StrAttr:$scheme);
  let results = (outs AnyRankedTensor:$values, Optional<AnyRankedTensor>:$scales);
  let assemblyFormat = [{
    $scheme $src (`scale` $scale^)? attr-dict `:` type($src) `->` type($values) (`,` type($scales)^)?
  }];
  let hasVerifier = 1;
}

def Tile_DequantizeOp : Tile_Op<"dequantize", [Pure]> {
  let summary = "quantized values and their scales back to f32 (FP8: f32 or bf16)";
  let description = [{
    `nvfp4`: e2m1(q) * (float(sf) / gs); `mxfp4`: e2m1(q) * 2^e(sf).
    `fp8`: float(q) * scale, `scales` an f32 scalar; `fp8_group`:
    float(q) * s of the element's group of 128, `scales` an f32 tile. The
    FP8 product is rounded to the result type (f32 or bf16).
  }];
  let arguments = (ins AnyRankedTensor:$values, AnyType:$scales,
                       Optional<F32>:$global_scale, StrAttr:$scheme);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $scheme $values `,` $scales (`scale` $global_scale^)? attr-dict `:` type($values) `,` type($scales) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif
