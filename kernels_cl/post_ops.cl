// The output stage (ops/netcl/PostOps.hpp): every kernel that writes a
// forward output stores POST_OPS(value, old) where `value` is conv + bias
// and `old` an expression reading the element (or vector) being written:
//
//   y = ACTIVATE(value + old)   with POST_SUM (old is then read once)
//   y = ACTIVATE(value)         without (old is never evaluated)
//
// Build options (none: POST_OPS(v, old) is v, and the kernel is unchanged):
//   POST_SUM         add y's contents on entry (a residual)
//   POST_ACT=1       ReLU
//   POST_ACT=2       clamp to [POST_LO, POST_HI] (ReLU6: [0, 6])
//   POST_ACT=3       leaky ReLU, slope POST_ALPHA below 0
// Works on float and floatN alike. The comparisons are written so that a
// NaN passes through (v < 0 is false for NaN), as PyTorch's relu, clamp and
// leaky_relu propagate it; fmax(NaN, 0) would have returned 0.
//
// A kernel whose edge tiles are shifted back to overlap their neighbour
// (writing the same values twice) must, under POST_SUM, store only its own
// elements: adding the residual twice is a different answer.

#ifndef POST_ACT
#define POST_ACT 0
#endif

#if POST_ACT == 0
#define ACTIVATE(v) (v)
#elif POST_ACT == 1
#define ACTIVATE(v) ((v) < 0.0f ? 0.0f : (v))
#elif POST_ACT == 2
#define ACTIVATE(v) ((v) < POST_LO ? POST_LO : (v) > POST_HI ? POST_HI : (v))
#elif POST_ACT == 3
#define ACTIVATE(v) ((v) < 0.0f ? POST_ALPHA * (v) : (v))
#else
#error "POST_ACT must be 0 (none), 1 (ReLU), 2 (clamp) or 3 (leaky ReLU)"
#endif

#ifdef POST_SUM
#define POST_OPS(v, old) ACTIVATE((v) + (old))
#else
#define POST_OPS(v, old) ACTIVATE(v)
#endif
