#!/usr/bin/env python3
"""Generates the op cases of GridSample-9 and ROIAlign-3/-9 (tests/ops/cases/nn_sampling.json) with numpy only.

GridSample: every mode (bilinear, bicubic, nearest) with every padding mode (zeros, border, reflection),
with and without align_corners, grid points inside and outside [-1, 1]; f64; a batch of 2 with 2 channels;
shape and attribute errors. The reference follows PyTorch's grid_sample, which pads the continuous source
coordinate for bilinear and nearest (clip, or reflect then clip) where the kernel pads each tap it reads:
the two agree, and the cases check it.
ROIAlign: avg and max, fixed and adaptive (0) sampling_ratio, ROIs reaching past the feature map, the
three aligned_mode values of opset9, two images; shape and attribute errors.
Run: python3 tests/ops/gen_sampling.py  (deterministic: fixed seed).
"""
import math

import numpy as np

import opcase

rng = np.random.default_rng(4242)
T = opcase.tensor


def error(name, op, version, inputs, attrs, text):
    return opcase.case(name, op, version, inputs, attrs=attrs, error=text, always_attrs=True)


# ---------------------------------------------------------------------------------------------
# GridSample

def reflect(v, twice_low, twice_high):
    if twice_low == twice_high:
        return 0.0
    low = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    v = abs(v - low)
    extra = math.fmod(v, span)
    flips = math.floor(v / span)
    return extra + low if flips % 2 == 0 else span - extra + low


def source_coordinate(v, size, padding, align_corners):
    """The unnormalized coordinate, padded as PyTorch does for bilinear and nearest."""
    v = (v + 1) / 2 * (size - 1) if align_corners else ((v + 1) * size - 1) / 2
    if padding == "border":
        v = min(max(v, 0.0), size - 1.0)
    elif padding == "reflection":
        v = reflect(v, 0, 2 * (size - 1)) if align_corners else reflect(v, -1, 2 * size - 1)
        v = min(max(v, 0.0), size - 1.0)
    return v


def tap(img, y, x, padding, align_corners):
    """One pixel read by bicubic interpolation, padded per tap."""
    H, W = img.shape
    if padding == "zeros":
        return img[y, x] if 0 <= y < H and 0 <= x < W else 0.0
    if padding == "reflection":
        if align_corners:
            x, y = reflect(x, 0, 2 * (W - 1)), reflect(y, 0, 2 * (H - 1))
        else:
            x, y = reflect(x, -1, 2 * W - 1), reflect(y, -1, 2 * H - 1)
    x = int(min(max(x, 0), W - 1))
    y = int(min(max(y, 0), H - 1))
    return img[y, x]


def cubic_weights(t, a=-0.75):
    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample(data, grid, mode, padding, align_corners):
    N, C, H, W = data.shape
    _, Ho, Wo, _ = grid.shape
    out = np.zeros((N, C, Ho, Wo))
    for n in range(N):
        for c in range(C):
            img = data[n, c].astype(np.float64)
            for i in range(Ho):
                for j in range(Wo):
                    gx, gy = float(grid[n, i, j, 0]), float(grid[n, i, j, 1])
                    if mode == "bicubic":
                        x = (gx + 1) / 2 * (W - 1) if align_corners else ((gx + 1) * W - 1) / 2
                        y = (gy + 1) / 2 * (H - 1) if align_corners else ((gy + 1) * H - 1) / 2
                        x0, y0 = math.floor(x), math.floor(y)
                        wx, wy = cubic_weights(x - x0), cubic_weights(y - y0)
                        out[n, c, i, j] = sum(wy[a] * wx[b] * tap(img, y0 - 1 + a, x0 - 1 + b, padding, align_corners)
                                              for a in range(4) for b in range(4))
                        continue
                    x = source_coordinate(gx, W, padding, align_corners)
                    y = source_coordinate(gy, H, padding, align_corners)
                    if mode == "nearest":
                        out[n, c, i, j] = tap(img, int(np.rint(y)), int(np.rint(x)), "zeros", align_corners)
                        continue
                    x0, y0 = math.floor(x), math.floor(y)
                    dx, dy = x - x0, y - y0
                    out[n, c, i, j] = sum(wgt * tap(img, yy, xx, "zeros", align_corners)
                                          for yy, xx, wgt in [(y0, x0, (1 - dy) * (1 - dx)), (y0, x0 + 1, (1 - dy) * dx),
                                                              (y0 + 1, x0, dy * (1 - dx)), (y0 + 1, x0 + 1, dy * dx)])
    return out


def gen_grid_sample():
    op, v = "GridSample", "opset9"
    cases = []
    data = rng.uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    # Keep nearest's rounding away from exact .5 ties, where float32 and float64 may disagree.
    grid = rng.uniform(-1.6, 1.6, (1, 3, 5, 2)).astype(np.float32)
    for mode in ("bilinear", "bicubic", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                attrs = {"mode": mode, "padding_mode": padding, "align_corners": "true" if align else "false"}
                y = grid_sample(data, grid, mode, padding, align)
                cases.append(opcase.case(f"{mode}_{padding}_{'aligned' if align else 'unaligned'}", op, v,
                                         [T(data), T(grid)], [T(y)], attrs, rtol=1e-5, atol=1e-5))
    data2 = rng.uniform(-2, 2, (2, 2, 4, 3))
    grid2 = rng.uniform(-1.2, 1.2, (2, 2, 3, 2))
    cases.append(opcase.case("f64_batch2_defaults", op, v, [T(data2, "f64"), T(grid2, "f64")],
                             [T(grid_sample(data2, grid2, "bilinear", "zeros", False), "f64")], {}, always_attrs=True))
    cases += [
        error("grid_not_pairs", op, v, [T(np.zeros((1, 1, 2, 2))), T(np.zeros((1, 2, 2, 3)))], {}, "must end in 2"),
        error("batch_mismatch", op, v, [T(np.zeros((2, 1, 2, 2))), T(np.zeros((1, 2, 2, 2)))], {},
              "differ in batch size"),
        error("bad_mode", op, v, [T(np.zeros((1, 1, 2, 2))), T(np.zeros((1, 2, 2, 2)))], {"mode": "linear"}, "mode"),
        error("data_rank", op, v, [T(np.zeros((1, 2, 2))), T(np.zeros((1, 2, 2, 2)))], {}, "data (input 0) must have rank 4"),
    ]
    return cases


# ---------------------------------------------------------------------------------------------
# ROIAlign

def bilinear_at(img, y, x):
    H, W = img.shape
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= H - 1:
        y0 = y1 = H - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= W - 1:
        x0 = x1 = W - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[y0, x0] + (1 - ly) * lx * img[y0, x1] + ly * (1 - lx) * img[y1, x0] +
            ly * lx * img[y1, x1])


def roi_align(data, rois, batch, ph, pw, ratio, scale, mode, aligned="asymmetric"):
    _, C, _, _ = data.shape
    out = np.zeros((len(rois), C, ph, pw))
    src, dst = {"asymmetric": (0, 0), "half_pixel_for_nn": (0, -0.5), "half_pixel": (0.5, -0.5)}[aligned]
    for r, roi in enumerate(rois):
        x1, y1, x2, y2 = [(float(c) + src) * scale + dst for c in roi]
        w, h = x2 - x1, y2 - y1
        if aligned == "asymmetric":
            w, h = max(w, 1.0), max(h, 1.0)
        bw, bh = w / pw, h / ph
        gw = ratio if ratio > 0 else math.ceil(bw)
        gh = ratio if ratio > 0 else math.ceil(bh)
        for c in range(C):
            img = data[batch[r], c].astype(np.float64)
            for i in range(ph):
                for j in range(pw):
                    vals = [bilinear_at(img, y1 + i * bh + (a + 0.5) * bh / gh, x1 + j * bw + (b + 0.5) * bw / gw)
                            for a in range(gh) for b in range(gw)]
                    out[r, c, i, j] = max(vals) if mode == "max" else sum(vals) / max(gh * gw, 1)
    return out


def gen_roi_align():
    cases = []
    data = rng.uniform(-1, 1, (2, 2, 6, 5)).astype(np.float32)
    rois = np.array([[0.5, 1.0, 3.5, 4.0], [1.2, 0.3, 4.9, 5.6], [-1.5, -1.0, 2.0, 1.5], [3.0, 4.0, 3.2, 4.1]],
                    np.float32)
    batch = np.array([0, 1, 1, 0], np.int64)

    def add(name, version, ratio, scale, mode, aligned=None, idx_type="i64"):
        attrs = {"pooled_h": 3, "pooled_w": 2, "sampling_ratio": ratio, "spatial_scale": scale, "mode": mode}
        if aligned:
            attrs["aligned_mode"] = aligned
        y = roi_align(data, rois, batch, 3, 2, ratio, scale, mode, aligned or "asymmetric")
        cases.append(opcase.case(name, "ROIAlign", version, [T(data), T(rois), T(batch, idx_type)], [T(y)],
                                 {k: str(v) for k, v in attrs.items()}, rtol=1e-5, atol=1e-5))

    add("avg_ratio2", "opset3", 2, 1.0, "avg")
    add("avg_adaptive_scaled", "opset3", 0, 0.75, "avg", idx_type="i32")
    add("max_ratio2", "opset3", 2, 1.0, "max")
    add("v9_asymmetric", "opset9", 1, 1.0, "avg", "asymmetric")
    add("v9_half_pixel_for_nn", "opset9", 2, 1.0, "avg", "half_pixel_for_nn")
    add("v9_half_pixel_adaptive", "opset9", 0, 0.5, "avg", "half_pixel")
    base = {"pooled_h": "2", "pooled_w": "2", "sampling_ratio": "1", "spatial_scale": "1", "mode": "avg"}
    d, b = T(np.zeros((1, 1, 4, 4))), T(np.zeros(2), "i64")
    cases += [
        error("rois_not_quads", "ROIAlign", "opset3", [d, T(np.zeros((2, 5))), b], base, "must be [NUM_ROIS, 4]"),
        error("indices_count", "ROIAlign", "opset3", [d, T(np.zeros((3, 4))), b], base, "one index per ROI"),
        error("zero_pooled", "ROIAlign", "opset3", [d, T(np.zeros((2, 4))), b], dict(base, pooled_h="0"),
              "must be positive"),
        error("bad_aligned_mode", "ROIAlign", "opset9", [d, T(np.zeros((2, 4))), b],
              dict(base, aligned_mode="center"), "aligned_mode"),
    ]
    return cases


if __name__ == "__main__":
    opcase.write("nn", "sampling", gen_grid_sample() + gen_roi_align())
