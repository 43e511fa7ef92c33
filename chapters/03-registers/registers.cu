// chapters/03-registers/registers.cu - chapter 3's contenders from registers.cuh, defined once: the programs
// that race them link this object. registers.cuh holds the code and the story.

#include "registers.cuh"

extern const triangle_kernel registers_kernel = {registers_refuses, registers_launch};
