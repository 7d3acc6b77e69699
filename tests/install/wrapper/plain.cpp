// A unit without a request: adjc++ hands it to the compiler as it is.
#include <cstdio>
int main() {
  std::printf("plain\n");
  return 0;
}
