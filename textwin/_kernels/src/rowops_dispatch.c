/* Run-time selection of the row operations (rowops.h): one table of function
   pointers, filled by tw_simd_select() at import (or when a test asks for a
   path), read by every call.  On x86-64 with GCC or Clang the CPU is asked
   for AVX2 and FMA (__builtin_cpu_supports asks for the features;
   target_clones("arch=haswell") would ask for an Intel model and leave AMD
   Zen on the baseline); elsewhere the baseline only. */
#include "rowops.h"

tw_rowops tw_ops = {tw_dot_base, tw_dot2_base, tw_pair_dot_base, tw_scale_exp_base,
                    tw_pair_scale_exp_base};

static const tw_rowops tw_ops_base = {tw_dot_base, tw_dot2_base, tw_pair_dot_base,
                                      tw_scale_exp_base, tw_pair_scale_exp_base};
#ifdef TW_X86_AVX2
static const tw_rowops tw_ops_avx2 = {tw_dot_avx2, tw_dot2_avx2, tw_pair_dot_avx2,
                                      tw_scale_exp_avx2, tw_pair_scale_exp_avx2};
#endif

int tw_simd_select(int want) {
#ifdef TW_X86_AVX2
    __builtin_cpu_init();
    if (want != 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        tw_ops = tw_ops_avx2;
        return 1;
    }
#endif
    tw_ops = tw_ops_base;
    return 0;
}
