// placeholder until the tried variants move here
#include "../tiled.cu"
