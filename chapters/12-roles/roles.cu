// chapters/12-roles/roles.cu - chapter 12's warps with roles from roles.cuh, defined once: the
// programs that race them link this object. roles.cuh holds the code and the story.

#include "roles.cuh"

extern const triangle_kernel tf32_roles_kernel = {roles_refuses, roles_launch<1>, roles_unfit};
extern const triangle_kernel tf32x3_roles_kernel = {roles_refuses, roles_launch<3>, roles_unfit};
