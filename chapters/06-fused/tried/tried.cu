// placeholder until the tried variants move here
#include "../fused.cu"
#include "../unfused.cu"
