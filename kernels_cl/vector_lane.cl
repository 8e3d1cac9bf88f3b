// Lane t of a float4, float8 or float16, by a constant t after unrolling: no
// address of a private vector is taken (that would force it to memory on
// some compilers). LANE_OF(W, v, t): W may itself be a macro (VW, CL).

#define LANE4(v, t) ((t) == 0 ? (v).s0 : (t) == 1 ? (v).s1 : (t) == 2 ? (v).s2 : (v).s3)
#define LANE8(v, t)                                                                             \
    ((t) == 0 ? (v).s0 : (t) == 1 ? (v).s1 : (t) == 2 ? (v).s2 : (t) == 3 ? (v).s3 :           \
     (t) == 4 ? (v).s4 : (t) == 5 ? (v).s5 : (t) == 6 ? (v).s6 : (v).s7)
#define LANE16(v, t)                                                                            \
    ((t) == 0 ? (v).s0 : (t) == 1 ? (v).s1 : (t) == 2 ? (v).s2 : (t) == 3 ? (v).s3 :           \
     (t) == 4 ? (v).s4 : (t) == 5 ? (v).s5 : (t) == 6 ? (v).s6 : (t) == 7 ? (v).s7 :           \
     (t) == 8 ? (v).s8 : (t) == 9 ? (v).s9 : (t) == 10 ? (v).sa : (t) == 11 ? (v).sb :         \
     (t) == 12 ? (v).sc : (t) == 13 ? (v).sd : (t) == 14 ? (v).se : (v).sf)
#define LANE_OF(W, v, t) LANE_OF_WIDTH(W, v, t)
#define LANE_OF_WIDTH(W, v, t) LANE##W(v, t)
