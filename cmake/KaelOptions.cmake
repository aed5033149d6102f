# Compiler warnings, sanitizers and the optional CUDA toolchain.
include(GNUInstallDirs)

# The warning set applies to every target kael compiles itself: the library, the tests,
# the examples. It is attached per target (not globally) so that a consumer of the
# installed package does not inherit it.
set(KAEL_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion)
if(KAEL_WARNINGS_AS_ERRORS)
  list(APPEND KAEL_WARNING_FLAGS -Werror)
endif()

# The library is one static library per layer (kael/CMakeLists.txt); this links each alone
# over the layers below it, so that a call from a layer to a higher one fails the build.
option(KAEL_CHECK_LAYER_LINKS "Link each layer of the library alone over the layers below it" ON)

function(kael_enable_warnings target)
  # The flags are the host C++ compiler's; the CUDA files of chapter 09 go through nvcc,
  # which does not take them.
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${KAEL_WARNING_FLAGS}>")
  # Error messages name the file of the failed check. Make that path relative to kael/,
  # so messages read "src/core/tensor_impl.cpp:31" on every machine, not a build-machine path.
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/kael/=>")
endfunction()

#> stage 6
set(KAEL_USE_BLAS AUTO CACHE STRING "BLAS for float and double matmul: AUTO (if found), ON or OFF")
set_property(CACHE KAEL_USE_BLAS PROPERTY STRINGS AUTO ON OFF)
# Kernels compiled for the build machine's CPU use its widest vector instructions (AVX2,
# AVX-512). Turn it off for a library that must run on other, older x86-64 machines; the
# matrix kernel still picks AVX2 or AVX-512 at run time either way.
option(KAEL_NATIVE_ARCH "Compile kael for this machine's CPU (-march=native)" ON)
# Another CPU's instruction set instead of this machine's, e.g. x86-64-v3 (AVX2, no AVX-512)
# or x86-64-v4 (AVX-512): scripts/check-vectorization builds both on any machine that can
# run them, so a kernel that vectorizes for one width and not the other is caught here.
set(KAEL_MARCH "" CACHE STRING "Compile kael with -march=KAEL_MARCH instead of -march=native")

#< stage 6
if(KAEL_ENABLE_SANITIZERS AND KAEL_ENABLE_TSAN)
  message(FATAL_ERROR "KAEL_ENABLE_SANITIZERS and KAEL_ENABLE_TSAN cannot be combined: "
                      "AddressSanitizer and ThreadSanitizer use incompatible runtimes")
endif()

set(KAEL_SANITIZER_LINK_FLAGS "")
if(KAEL_ENABLE_SANITIZERS)
  # -fno-sanitize-recover turns every UBSan report into a failing test instead of a log line.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
endif()
if(KAEL_ENABLE_SANITIZERS OR KAEL_ENABLE_TSAN)
  # -O1, as both sanitizers' documentation advises: at -O0 the matrix-product suites alone
  # took 357 of the 437 seconds the tests ran under AddressSanitizer (CTest's cost data,
  # 2026-12-02). Under the sanitizers' instrumentation
  # GCC's -Wmaybe-uninitialized reports std::optional members that are initialized (a known
  # false positive of its flow analysis), so that one warning is off in these builds only.
  add_compile_options(-O1 $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
  # -g1 keeps what a sanitizer's report needs, functions and line numbers, without the
  # types and variables of full debug information, which cost a third of these builds'
  # compile time (compare.cpp under ASan and UBSan: 44 s with -g, 31 s with -g1).
  add_compile_options(-g1)
endif()
if(KAEL_ENABLE_SANITIZERS)
  set(KAEL_SANITIZER_LINK_FLAGS -fsanitize=address,undefined)
endif()

if(KAEL_ENABLE_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  set(KAEL_SANITIZER_LINK_FLAGS -fsanitize=thread)
endif()
add_link_options(${KAEL_SANITIZER_LINK_FLAGS})
#> stage 9

# A cached block is still valid memory to AddressSanitizer, so a use after free would go
# unseen, and ThreadSanitizer should see each allocation's own memory: both builds compile
# the caching allocator out (chapter 08). The cache's own tests run in them regardless.
# KAEL_TSAN_KEEP_CACHE keeps it in a ThreadSanitizer build. scripts/test's does: it runs the
# other suites with KAEL_NO_CACHING_ALLOCATOR=1 set, then the allocator's suites, so that the
# library's real caches, their locks and their fork handlers are checked too.
option(KAEL_TSAN_KEEP_CACHE "Keep the caching allocator in a ThreadSanitizer build" OFF)
if(KAEL_ENABLE_SANITIZERS OR (KAEL_ENABLE_TSAN AND NOT KAEL_TSAN_KEEP_CACHE))
  add_compile_definitions(KAEL_NO_CACHING_ALLOCATOR)
endif()
#< stage 9

if(KAEL_ENABLE_CUDA)
  # The CUDA toolchain is found and configured here; the device backend itself is the
  # subject of stage 10. Until then the library still reports cuda_is_available() == false.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)  # "native" fails on machines without a GPU
  endif()
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)  # one cudart, not the shared and the static one
  enable_language(CUDA)
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    # CMake 3.25 does not know nvcc's C++20 flag.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "kael: CUDA toolkit ${CUDAToolkit_VERSION} found, architectures "
                 "${CMAKE_CUDA_ARCHITECTURES}")
endif()
