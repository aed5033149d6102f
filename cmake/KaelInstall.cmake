# Install rules and a package config, so that another CMake project can write
#   find_package(kael 1.0 REQUIRED)
#   target_link_libraries(app PRIVATE kael::kael)

include(CMakePackageConfigHelpers)

install(TARGETS kael ${KAEL_LAYERS} EXPORT kaelTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY kael/include/kael DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(KAEL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kael)
install(EXPORT kaelTargets NAMESPACE kael:: DESTINATION ${KAEL_CMAKE_DIR})
configure_package_config_file(cmake/kaelConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kaelConfig.cmake
  INSTALL_DESTINATION ${KAEL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kaelConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kaelConfig.cmake ${PROJECT_BINARY_DIR}/kaelConfigVersion.cmake
  DESTINATION ${KAEL_CMAKE_DIR})
