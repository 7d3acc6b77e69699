# Warnings every Adjoint target builds with.
function(adjoint_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
endfunction()
