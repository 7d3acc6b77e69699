# `cmake --install build --prefix P`: adjc and adjc++ in P/bin, the headers adjc's users include
# (adjoint/**, clad/**) in P/include, headers only adjc's parser reads in P/share/adjoint, and the
# CMake package in P/lib/cmake/Adjoint: `find_package(Adjoint CONFIG REQUIRED)` gives
# Adjoint::headers, Adjoint::adjc, Adjoint::adjcxx (adjc++), ADJOINT_ADJC_EXECUTABLE,
# ADJOINT_CXX_WRAPPER and adjoint_add_gradients().
include(GNUInstallDirs)
set(ADJOINT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Adjoint)

set_target_properties(adjoint_headers PROPERTIES EXPORT_NAME headers)
install(TARGETS adjoint_headers EXPORT AdjointTargets)
install(DIRECTORY include/adjoint include/clad DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET adjc)
  install(TARGETS adjc adjcxx EXPORT AdjointTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY adjc/parse_include/ DESTINATION ${CMAKE_INSTALL_DATADIR}/adjoint/parse_include)
endif()
install(EXPORT AdjointTargets NAMESPACE Adjoint:: DESTINATION ${ADJOINT_INSTALL_CMAKEDIR})
install(FILES cmake/AdjointConfig.cmake cmake/AdjointGradients.cmake DESTINATION ${ADJOINT_INSTALL_CMAKEDIR})
