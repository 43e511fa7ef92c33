/* tests/test_cublas_loader.cpp - cmocka tests of common/device/cublas_loader.cpp:
 * the cuBLAS functions the programs call reach the toolkit's library, loaded
 * at the first call (no GPU needed: the status names are the library's own
 * words). Built by `make`, run by `make test`:
 *
 *   build/tests/test_cublas_loader
 *
 * That the programs start without loading cuBLAS, and that one calling a
 * cuBLAS function the loader does not define still links, is tested in
 * tests/suites/20-foundation.sh (readelf). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
extern "C" {   /* (cmocka's header is C's alone) */
#include <cmocka.h>
}

#include <cublas_v2.h>
#include <dlfcn.h>
#include <unistd.h>

/* The library is not loaded before the first call, and is after it: the
 * status names come from libcublas itself. */
static void test_loaded_at_the_first_call(void **state)
{
    (void)state;
    char soname[64];
    snprintf(soname, sizeof soname, "libcublas.so.%d", CUBLAS_VER_MAJOR);
    assert_null(dlopen(soname, RTLD_NOW | RTLD_NOLOAD));
    assert_string_equal(cublasGetStatusName(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
    void *loaded = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(loaded);
    dlclose(loaded);
}

/* Each function reaches the library's: its status strings, which the
 * loader's fallbacks ("could not be loaded") are not. */
static void test_status_strings_are_the_library_s(void **state)
{
    (void)state;
    assert_string_equal(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE),
                        "CUBLAS_STATUS_INVALID_VALUE");
    assert_null(strstr(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE), "could not be loaded"));
}

/* Every forwarded function is found in the library: with no handle the
 * library itself refuses each call (CUBLAS_STATUS_NOT_INITIALIZED, which
 * is also what the loader answers without a function), so the proof is
 * that the loader said nothing on stderr, where it names a function the
 * library does not have. */
static void test_every_function_is_found(void **state)
{
    (void)state;
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t handle = nullptr;
    FILE *said = tmpfile();
    assert_non_null(said);
    fflush(stderr);
    const int saved_stderr = dup(2);
    dup2(fileno(said), 2);
    cublasCreate(&handle); /* no GPU here, or one: either way the library's answer */
    if (handle)
        cublasDestroy(handle);
    cublasDestroy(nullptr);
    cublasSetStream(nullptr, nullptr);
    cublasGemmEx(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, nullptr, CUDA_R_32F, 1,
                 nullptr, CUDA_R_32F, 1, &zero, nullptr, CUDA_R_32F, 1, CUBLAS_COMPUTE_32F,
                 CUBLAS_GEMM_DEFAULT);
    cublasGemmStridedBatchedEx(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, nullptr,
                               CUDA_R_32F, 1, 0, nullptr, CUDA_R_32F, 1, 0, &zero, nullptr,
                               CUDA_R_32F, 1, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    char message[512] = "";
    rewind(said);
    const size_t length = fread(message, 1, sizeof message - 1, said);
    fclose(said);
    message[length] = '\0';
    assert_null(strstr(message, "cuBLAS: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loaded_at_the_first_call),
        cmocka_unit_test(test_status_strings_are_the_library_s),
        cmocka_unit_test(test_every_function_is_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
