# The Adjoint package, as installed (cmake/AdjointInstall.cmake):
#   find_package(Adjoint CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE Adjoint::headers)
#   adjoint_add_gradients(app loss.cpp)     # or build with CXX=${ADJOINT_CXX_WRAPPER}
include("${CMAKE_CURRENT_LIST_DIR}/AdjointTargets.cmake")
# A build configured without adjc (-DADJOINT_BUILD_ADJC=OFF) installs the headers only.
if(TARGET Adjoint::adjc)
  get_target_property(ADJOINT_ADJC_EXECUTABLE Adjoint::adjc LOCATION)
  get_target_property(ADJOINT_CXX_WRAPPER Adjoint::adjcxx LOCATION)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/AdjointGradients.cmake")
