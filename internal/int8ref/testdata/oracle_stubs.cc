#include <cstdarg>
#include <cstdio>
extern "C" void DebugLog(const char* format, va_list args) { vfprintf(stderr, format, args); }
extern "C" int DebugVsnprintf(char* buffer, size_t buf_size, const char* format, va_list vlist) { return vsnprintf(buffer, buf_size, format, vlist); }
