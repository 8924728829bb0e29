// The C module's one translation unit (SwiftPM builds a C target from sources): it only checks,
// at compile time, what the header promises callers about its types.
#include "peggle_env.h"

_Static_assert(sizeof(peggle_buffers) == 10 * 8, "peggle_buffers: two counts and eight pointers, 8 bytes each");
_Static_assert(PEGGLE_STATUS_COUNT == 15, "peggle_status: ok, 11 protocol codes, 3 of the library");
