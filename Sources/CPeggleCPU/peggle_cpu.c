#include "peggle_cpu.h"

unsigned peggle_cpu_features(void) {
#if defined(__x86_64__)
    /* CPUID through the compiler's runtime (the same bits /proc/cpuinfo shows: CPUIDTests
     * compares them). __builtin_cpu_init is needed only before constructors run; calling it
     * again is harmless. */
    __builtin_cpu_init();
    unsigned have = 0;
    if (__builtin_cpu_supports("avx2")) have |= PEGGLE_CPU_AVX2;
    if (__builtin_cpu_supports("bmi2")) have |= PEGGLE_CPU_BMI2;
    if (__builtin_cpu_supports("fma")) have |= PEGGLE_CPU_FMA;
    return have;
#else
    return 0;
#endif
}
