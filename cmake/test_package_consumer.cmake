# Installs a kael build into a scratch prefix, then configures, builds and runs the
# consumer project in tests/package_consumer against that prefix.
# Inputs: KAEL_BUILD_DIR, CONSUMER_SOURCE_DIR, SCRATCH_DIR, EXPECTED_VERSION, CXX_COMPILER,
# and LINK_FLAGS (the sanitizer runtime, when the library was built with one).
file(REMOVE_RECURSE "${SCRATCH_DIR}")
set(prefix "${SCRATCH_DIR}/prefix")

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "step failed (${result}): ${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step(${CMAKE_COMMAND} --install "${KAEL_BUILD_DIR}" --prefix "${prefix}")
run_step(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${SCRATCH_DIR}/build"
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
         -DCMAKE_BUILD_TYPE=Release "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
run_step(${CMAKE_COMMAND} --build "${SCRATCH_DIR}/build")
run_step("${SCRATCH_DIR}/build/consumer")
string(REGEX MATCH "^[^\n]*" printed_version "${step_output}")
if(NOT printed_version STREQUAL EXPECTED_VERSION)
  message(FATAL_ERROR "consumer printed version '${printed_version}', expected '${EXPECTED_VERSION}'")
endif()
message(STATUS "consumer built against ${prefix} and printed ${printed_version}")
