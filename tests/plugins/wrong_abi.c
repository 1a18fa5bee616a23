/* A library that exports aqmlab_plugin with another ABI and crate version: the loader
   reads the two leading fields of the table and refuses it, naming both versions. */
#include <stddef.h>
#include <stdint.h>

struct leading { uint32_t abi; const char *version; size_t version_len; };
static const struct leading table = { 99, "9.9.9", 5 };

const struct leading *aqmlab_plugin(void) { return &table; }
