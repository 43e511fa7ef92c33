/* common/device/cublas_loader.cpp - cuBLAS, loaded when a program first
 * calls it, not when the program starts.
 *
 * A program linked against libcublas pays, at every start, for loading it
 * and cuBLASLt with it: about 0.35 s of CPU on a small machine (their
 * initialisers and the pages they touch), also for `--help`, a refused size
 * or a machine with no GPU, where cuBLAS is never called; the tests start
 * the programs hundreds of times. So the library defines the cuBLAS
 * functions the workbook calls, and each loads libcublas (dlopen, once)
 * and calls the real one (dlsym). Their declarations are cublas_v2.h's own,
 * so a signature that drifts from the toolkit's is a compile error here.
 *
 * A program that calls another cuBLAS function (a student trying
 * cublasSgemm) still links: the Makefile adds libcublas "as needed", which
 * makes the program load it at its start, as before.
 *
 * The library is the toolkit's major version (libcublas.so.13 for CUDA 13),
 * found where the dynamic loader finds libraries (LD_LIBRARY_PATH,
 * ldconfig), else in the toolkit the program was built with
 * (WORKBOOK_CUDA_LIBRARY_DIR, which the Makefile passes). */
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>

#define WORKBOOK_STRING(x) #x
#define WORKBOOK_XSTRING(x) WORKBOOK_STRING(x)

static const char cublas_soname[] = "libcublas.so." WORKBOOK_XSTRING(CUBLAS_VER_MAJOR);

/* The library, opened once (a function-local static is initialised once,
 * even with several threads); NULL, said on stderr, when it cannot be. */
static void *cublas_library(void)
{
    static void *const library = [] {
        void *opened = dlopen(cublas_soname, RTLD_NOW | RTLD_LOCAL);
#ifdef WORKBOOK_CUDA_LIBRARY_DIR
        if (!opened) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", WORKBOOK_CUDA_LIBRARY_DIR, cublas_soname);
            opened = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
#endif
        if (!opened)
            fprintf(stderr, "cuBLAS: cannot load %s: %s (is the CUDA Toolkit's lib folder on "
                    "LD_LIBRARY_PATH?)\n", cublas_soname, dlerror());
        return opened;
    }();
    return library;
}

/* The library's own function NAME, or NULL (said on stderr). */
static void *cublas_function(const char *name)
{
    void *const library = cublas_library();
    if (!library)
        return nullptr;
    void *const function = dlsym(library, name);
    if (!function)
        fprintf(stderr, "cuBLAS: %s has no %s\n", cublas_soname, name);
    return function;
}

/* NAME(PARAMETERS) calls the library's NAME(ARGUMENTS) (its type spelt
 * out: C++ sees overloads of some, cublas_api.h's inline wrappers of the
 * CUDA 11 forms); a library that
 * could not be loaded is CUBLAS_STATUS_NOT_INITIALIZED, which the callers'
 * CUBLAS_CHECK reports. */
#define WORKBOOK_FORWARD(name, parameters, arguments)                                            \
    cublasStatus_t CUBLASWINAPI name parameters                                                  \
    {                                                                                            \
        using function = cublasStatus_t(CUBLASWINAPI *) parameters;                              \
        static const auto real = reinterpret_cast<function>(cublas_function(#name));             \
        return real ? real arguments : CUBLAS_STATUS_NOT_INITIALIZED;                            \
    }

/* (cublas_v2.h names cublasCreate, cublasDestroy and cublasSetStream
 * cublasCreate_v2 and so on: these are what the programs call.) */
WORKBOOK_FORWARD(cublasCreate_v2, (cublasHandle_t *handle), (handle))
WORKBOOK_FORWARD(cublasDestroy_v2, (cublasHandle_t handle), (handle))
WORKBOOK_FORWARD(cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t stream), (handle, stream))

WORKBOOK_FORWARD(cublasGemmEx,
                 (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                  int n, int k, const void *alpha, const void *A, cudaDataType Atype, int lda,
                  const void *B, cudaDataType Btype, int ldb, const void *beta, void *C,
                  cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                  cublasGemmAlgo_t algo),
                 (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                  Ctype, ldc, computeType, algo))

WORKBOOK_FORWARD(cublasGemmStridedBatchedEx,
                 (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                  int n, int k, const void *alpha, const void *A, cudaDataType Atype, int lda,
                  long long int strideA, const void *B, cudaDataType Btype, int ldb,
                  long long int strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                  long long int strideC, int batchCount, cublasComputeType_t computeType,
                  cublasGemmAlgo_t algo),
                 (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                  strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo))

/* The names of a status, for the messages of CUBLAS_CHECK (device/gpu.h). */
const char *CUBLASWINAPI cublasGetStatusName(cublasStatus_t status)
{
    static const auto real =
        reinterpret_cast<decltype(&cublasGetStatusName)>(cublas_function("cublasGetStatusName"));
    return real ? real(status) : "CUBLAS_STATUS_NOT_INITIALIZED";
}

const char *CUBLASWINAPI cublasGetStatusString(cublasStatus_t status)
{
    static const auto real = reinterpret_cast<decltype(&cublasGetStatusString)>(
        cublas_function("cublasGetStatusString"));
    return real ? real(status) : "the cuBLAS library could not be loaded";
}
