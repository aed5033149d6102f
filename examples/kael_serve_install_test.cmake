# Installs the build into PREFIX and runs bin/kael-serve there (chapter 13): its help names
# the command and its endpoints, and a directory without a model fails with status 1 and a
# message that starts with the command's name.
#
#   cmake -DBUILD_DIR=... -DPREFIX=... -P kael_serve_install_test.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE installed OUTPUT_QUIET)
if(NOT installed EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${installed}")
endif()
set(command "${PREFIX}/bin/kael-serve")
if(NOT EXISTS "${command}")
  message(FATAL_ERROR "cmake --install left no ${command}")
endif()
execute_process(COMMAND "${command}" --help RESULT_VARIABLE status OUTPUT_VARIABLE help)
if(NOT status EQUAL 0 OR NOT help MATCHES "usage: kael-serve --model DIR" OR NOT help MATCHES "/v1/chat/completions")
  message(FATAL_ERROR "kael-serve --help: status ${status}, printed:\n${help}")
endif()
execute_process(COMMAND "${command}" --model "${PREFIX}/no-such-model" --port 0
                RESULT_VARIABLE status ERROR_VARIABLE error)
if(NOT status EQUAL 1 OR NOT error MATCHES "^kael-serve: .*no-such-model")
  message(FATAL_ERROR "kael-serve without a model: status ${status}, printed:\n${error}")
endif()
message(STATUS "kael-serve installed and runs as a command")
