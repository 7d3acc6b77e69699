# adjoint_add_gradients(<target> <source>...)
#
# Runs adjc on each source at build time (again whenever the source, a header it includes, or
# adjc itself changes) and compiles adjc's output in the source's place. The output starts with
# `#line` directives, so compiler errors and debuggers point at the user's file; it is compiled
# with -fopenmp-simd (GCC, Clang) so that ADJOINT_SIMD loops vectorise. adjc parses
# with the target's include directories and definitions, C++20 and -fopenmp (OpenMP loops are
# differentiated as parallel loops; compiled without OpenMP they run on one thread).
#
# The same function serves this project's build (the adjc target) and projects that use an
# installed Adjoint (find_package(Adjoint): the imported Adjoint::adjc).
#
# The variable ADJOINT_ADJC_FLAGS, when set where it is called, adds adjc options (e.g. --verify-each).
function(adjoint_add_gradients target)
  if(TARGET Adjoint::adjc)
    set(adjc Adjoint::adjc)
  elseif(TARGET adjc)
    set(adjc adjc)
  else()
    message(FATAL_ERROR "adjoint_add_gradients(${target}): no adjc (configure Adjoint with "
                        "-DADJOINT_BUILD_ADJC=ON, or find_package(Adjoint) an installed one)")
  endif()
  # System folders stay out: -I/usr/include breaks libstdc++'s #include_next.
  set(includes "$<FILTER:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,EXCLUDE,^/usr(/local)?/include/?$>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  foreach(source IN LISTS ARGN)
    get_filename_component(input "${source}" ABSOLUTE)
    get_filename_component(dir "${input}" DIRECTORY)
    # Named by the source's path in the project, so that two models' forward.cpp do not collide.
    file(RELATIVE_PATH name "${CMAKE_SOURCE_DIR}" "${input}")
    string(REGEX REPLACE "\\.[^./]*$" "" name "${name}")
    string(REPLACE "../" "up/" name "${name}")
    set(output "${CMAKE_CURRENT_BINARY_DIR}/adjc/${target}/${name}.adjc.cpp")
    add_custom_command(OUTPUT "${output}"
      COMMAND ${adjc} "${input}" -o "${output}" -MF "${output}.d" ${ADJOINT_ADJC_FLAGS} -- -std=c++20
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
              "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>" -fopenmp
      DEPENDS ${adjc} "${input}"
      DEPFILE "${output}.d"
      COMMAND_EXPAND_LISTS
      COMMENT "adjc ${source}")
    target_sources(${target} PRIVATE "${output}")
    # Quoted includes of the original file resolve from its folder; options set on the source
    # (set_source_files_properties before this call) apply to what is compiled in its place.
    set_source_files_properties("${output}" PROPERTIES INCLUDE_DIRECTORIES "${dir}")
    # -fopenmp-simd: the reverse loops adjc marks ADJOINT_SIMD vectorise their sums even in
    # targets built without OpenMP (docs/adjc.md).
    get_source_file_property(options "${input}" COMPILE_OPTIONS)
    if(NOT options)
      set(options "")
    endif()
    get_source_file_property(definitions "${input}" COMPILE_DEFINITIONS)
    if(NOT definitions)
      set(definitions "")
    endif()
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
      list(APPEND options -fopenmp-simd)
      list(APPEND definitions ADJOINT_OPENMP_SIMD)
    endif()
    set_source_files_properties("${output}" PROPERTIES COMPILE_OPTIONS "${options}"
                                COMPILE_DEFINITIONS "${definitions}")
    set_source_files_properties("${input}" PROPERTIES HEADER_FILE_ONLY ON)
  endforeach()
endfunction()
