// chapters/13-layer/layer.cu - chapter 13's contenders from layer.cuh, defined once: the programs
// that race them link this object. layer.cuh holds the code and the story.

#include "layer.cuh"

extern const msa_kernel fused_tiled_tf32_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32};
extern const msa_kernel fused_tiled_tf32x3_kernel =
    {tiled_refuses, tf32x3_scratch_floats, tiled_launch_tf32x3, tf32x3_layer_unfit};
