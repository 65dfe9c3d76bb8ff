// printf's format must be a string literal: the translator sizes the record from it.
extern "C" __global__ void say(const char* format, int v) { printf(format, v); }
