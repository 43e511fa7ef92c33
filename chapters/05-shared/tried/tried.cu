// placeholder until the tried variants move here
#include "../shared.cu"
