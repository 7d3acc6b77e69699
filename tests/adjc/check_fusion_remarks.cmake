# Runs adjc --remarks on SOURCE and compares its fusion remarks (the lines saying whether two calls
# fuse), without their directories, with EXPECTED line for line: a fusion not made, one made that
# should not be, or another reason fails the test.
# cmake -DADJC=... -DSOURCE=... -DEXPECTED=... -DOUTPUT=... -DINCLUDE=... -DTESTS=... -P check_fusion_remarks.cmake
execute_process(COMMAND "${ADJC}" "${SOURCE}" -o "${OUTPUT}" --remarks --verify-each -- -std=c++20 -fopenmp
                        "-I${INCLUDE}" "-I${TESTS}"
                RESULT_VARIABLE status ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "adjc failed on ${SOURCE}:\n${stderr}")
endif()
string(REGEX MATCHALL "[^\n]*remark: [^\n]* fused? [^\n]*" lines "${stderr}")
set(found "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.*/" "" line "${line}")
  string(APPEND found "${line}\n")
endforeach()
file(READ "${EXPECTED}" expected)
if(NOT found STREQUAL expected)
  file(WRITE "${OUTPUT}.remarks" "${found}")
  execute_process(COMMAND diff -u "${EXPECTED}" "${OUTPUT}.remarks" OUTPUT_VARIABLE delta)
  message(FATAL_ERROR "fusion remarks for ${SOURCE} differ from ${EXPECTED}:\n${delta}")
endif()
