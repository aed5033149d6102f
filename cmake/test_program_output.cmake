# Runs PROGRAM and fails unless it exits with 0 and its standard output equals the
# contents of EXPECTED_FILE exactly.
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE result OUTPUT_VARIABLE actual
                ERROR_VARIABLE errors)
file(READ "${EXPECTED_FILE}" expected)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${result}\n${errors}")
endif()
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output differs\n--- expected\n${expected}--- actual\n${actual}")
endif()
