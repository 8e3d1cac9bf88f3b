// A kernel that does nothing useful: built once per device so the runtime can
// ask for CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, which OpenCL 1.2 only
// reports per kernel.
__kernel void netcl_probe(__global float* out) {
    out[get_global_id(0)] = (float)get_local_id(0);
}
