/*
 * peggle_cpu.h: which of the instruction sets a tuned build uses (Package.swift's `tuned`:
 * `-target-cpu haswell`, so AVX2, BMI2 and FMA) this CPU has. Asked by the executables before
 * any tuned code runs, so a tuned binary on an older CPU says what is missing instead of dying
 * of SIGILL. Compiled without tuning (C targets never get the Swift targets' flags).
 */
#ifndef PEGGLE_CPU_H
#define PEGGLE_CPU_H

#define PEGGLE_CPU_AVX2 1u
#define PEGGLE_CPU_BMI2 2u
#define PEGGLE_CPU_FMA 4u
#define PEGGLE_CPU_TUNED (PEGGLE_CPU_AVX2 | PEGGLE_CPU_BMI2 | PEGGLE_CPU_FMA)

/* This CPU's features among PEGGLE_CPU_TUNED (0 on a CPU that is not x86-64). */
unsigned peggle_cpu_features(void);

#endif
