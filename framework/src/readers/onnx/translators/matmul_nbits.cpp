// com.microsoft MatMulNBits: ONNX Runtime's weight-only quantized MatMul (its MatMul4BitsQuantizer,
// ONNX Runtime GenAI's model builder with -p int4), Y = A x dequantize(B)^T (+ bias), B holding N
// rows of K codes of `bits` bits in blocks of `block_size` along K, each block with a scale and a
// zero point (2^(bits-1) when none is given).
//
// Written as the dequantization the QDQ translators write (quantization.cpp), so every device runs
// it and the CPU's compressed-weight MatMul recognises it as it does OpenVINO IR's int4 weights:
//
//   codes u8 [N, blocks, block_size] -> Convert f32 -> Subtract zero point [N, blocks, 1]
//     -> Multiply scale [N, blocks, 1] -> Reshape [N, blocks * block_size] (-> Slice to K)
//     -> MatMul(A, ., transpose_b) (-> Add bias)
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/packed_integers.hpp"

#include <vector>

namespace mosaic::onnx_import {

namespace {

// B's bytes, which must be an initializer: its codes unpacked into [N, blocks, block_size].
Output unpacked_codes(NodeContext& ctx, int64_t n, int64_t blocks, int64_t block, int bits) {
    const Output b = ctx.input(1);
    const Shape expected{n, blocks, block * bits / 8};
    if (ctx.type(b) != ElementType::u8 || ctx.shape(b) != expected)
        ctx.fail("input B must be uint8 of shape " + to_string(expected) + " (N, ceil(K / block_size), block_size * bits / 8), got " +
                 to_string(ctx.type(b)) + " " + to_string(ctx.shape(b)) + "; check the attributes K, N, bits and block_size");
    const ops::KnownValue* v = ctx.value(b);
    if (!v) ctx.unsupported("input B (the quantized weights) is computed; Mosaic reads MatMulNBits with constant weights");
    const readers::PackedType codes{"", bits, ElementType::u8};
    return ctx.constant(ElementType::u8, {n, blocks, block},
                        readers::unpack(codes, static_cast<const uint8_t*>(v->data), static_cast<uint64_t>(n * blocks * block)));
}

// A per-block parameter given as [N * blocks] or [N, blocks], reshaped to [N, blocks, 1] in f32.
Output per_block(NodeContext& ctx, Output p, int64_t n, int64_t blocks, const char* what) {
    const Shape& s = ctx.shape(p);
    if (shape_size(s) != n * blocks || s.size() > 2)
        ctx.fail(std::string(what) + " must hold one value per block, shape [" + std::to_string(n * blocks) + "] or [" +
                 std::to_string(n) + ", " + std::to_string(blocks) + "], got " + to_string(s));
    return ctx.convert(ctx.op("Reshape", {p, ctx.const_i64({n, blocks, 1})}, {{"special_zero", "false"}}), ElementType::f32);
}

// The zero points: packed uint8 codes (each row of N starting on a byte), or values of the scales'
// type, or the middle of the codes' range.
Output zero_points(NodeContext& ctx, int64_t n, int64_t blocks, int bits) {
    if (!ctx.has_input(3)) return ctx.scalar_of(ElementType::f32, static_cast<double>(1 << (bits - 1)));
    const Output zp = ctx.input(3);
    if (ctx.type(zp) != ElementType::u8) return per_block(ctx, zp, n, blocks, "zero_points");
    const int64_t row_bytes = (blocks * bits + 7) / 8;
    if (shape_size(ctx.shape(zp)) != n * row_bytes)
        ctx.fail("packed uint8 zero_points must hold " + std::to_string(n * row_bytes) + " bytes (" + std::to_string(row_bytes) +
                 " per row of N), got shape " + to_string(ctx.shape(zp)));
    const ops::KnownValue* v = ctx.value(zp);
    if (!v) ctx.unsupported("input zero_points is computed; Mosaic reads MatMulNBits with constant zero points");
    std::vector<float> values(static_cast<size_t>(n * blocks));
    const auto* bytes = static_cast<const uint8_t*>(v->data);
    for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < blocks; ++c)
            values[static_cast<size_t>(r * blocks + c)] = readers::packed_code(bytes + r * row_bytes, static_cast<uint64_t>(c), bits);
    return ctx.constant(ElementType::f32, {n, blocks, 1}, Buffer::from_vector(values));
}

Outputs matmul_nbits(NodeContext& ctx) {
    const int64_t k = ctx.attr_int("K"), n = ctx.attr_int("N"), block = ctx.attr_int("block_size");
    const int64_t bits = ctx.attr_int("bits", 4);
    if (bits != 2 && bits != 4 && bits != 8)
        ctx.unsupported("bits=" + std::to_string(bits) + " is not supported (2, 4 or 8)");
    if (k <= 0 || n <= 0) ctx.fail("attributes K and N must be positive, got K=" + std::to_string(k) + ", N=" + std::to_string(n));
    if (block < 16 || (block & (block - 1)) != 0)
        ctx.fail("block_size=" + std::to_string(block) + " must be a power of two of at least 16 (ONNX Runtime's rule)");
    if (ctx.has_input(4)) ctx.unsupported("input g_idx (act-order, deprecated in ONNX Runtime) is not supported");
    const Output a = ctx.input(0);
    const int64_t a_k = ctx.rank(a) > 0 ? ctx.shape(a).back() : -1;
    if (a_k >= 0 && a_k != k)
        ctx.fail("input A's last dimension is " + std::to_string(a_k) + " but attribute K is " + std::to_string(k));
    const int64_t blocks = (k + block - 1) / block;
    const int b = static_cast<int>(bits);

    Output w = ctx.convert(unpacked_codes(ctx, n, blocks, block, b), ElementType::f32);
    w = ctx.op("Subtract", {w, zero_points(ctx, n, blocks, b)});
    w = ctx.op("Multiply", {w, per_block(ctx, ctx.input(2), n, blocks, "scales")});
    w = ctx.op("Reshape", {w, ctx.const_i64({n, blocks * block})}, {{"special_zero", "false"}});
    if (blocks * block != k)  // the last block is padded past K
        w = ctx.op("Slice", {w, ctx.const_i64({0}), ctx.const_i64({k}), ctx.const_i64({1}), ctx.const_i64({1})});
    Output y = ctx.op("MatMul", {ctx.convert(a, ElementType::f32), w}, {{"transpose_a", "false"}, {"transpose_b", "true"}});
    if (ctx.has_input(5)) y = ctx.op("Add", {y, ctx.convert(ctx.input(5), ElementType::f32)});
    return {ctx.convert(y, ctx.type(a))};
}

const TranslatorRegistration microsoft("com.microsoft", {
    {"MatMulNBits", matmul_nbits},
});

}  // namespace

}  // namespace mosaic::onnx_import
