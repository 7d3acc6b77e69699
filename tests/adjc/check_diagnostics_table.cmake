# Checks that docs/adjc-diagnostics.md holds the table `adjc --list-diagnostics` prints, between the lines
# `<!-- begin: adjc --list-diagnostics -->` and `<!-- end: adjc --list-diagnostics -->`, so the
# documented table cannot drift from adjc/diagnostics.def. With -DUPDATE=ON it rewrites the docs'
# copy instead.
# cmake -DADJC=<adjc> -DDOC=<docs/adjc-diagnostics.md> [-DUPDATE=ON] -P check_diagnostics_table.cmake
execute_process(COMMAND "${ADJC}" --list-diagnostics RESULT_VARIABLE status OUTPUT_VARIABLE table)
if(NOT status EQUAL 0 OR table STREQUAL "")
  message(FATAL_ERROR "adjc --list-diagnostics failed (${status})")
endif()
file(READ "${DOC}" doc)
set(begin_marker "<!-- begin: adjc --list-diagnostics -->\n")
set(end_marker "<!-- end: adjc --list-diagnostics -->")
string(FIND "${doc}" "${begin_marker}" begin)
string(FIND "${doc}" "${end_marker}" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "${DOC} has no `${end_marker}` section after its begin marker")
endif()
string(LENGTH "${begin_marker}" marker_length)
math(EXPR start "${begin} + ${marker_length}")
math(EXPR length "${end} - ${start}")
string(SUBSTRING "${doc}" ${start} ${length} documented)
if(documented STREQUAL table)
  return()
endif()
if(UPDATE)
  string(SUBSTRING "${doc}" 0 ${start} head)
  string(SUBSTRING "${doc}" ${end} -1 tail)
  file(WRITE "${DOC}" "${head}${table}${tail}")
  message(STATUS "updated the diagnostics table in ${DOC}")
else()
  message(FATAL_ERROR "the diagnostics table in ${DOC} differs from `adjc --list-diagnostics`; "
                      "regenerate it with cmake -DADJC=... -DDOC=... -DUPDATE=ON -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
