/* tt_kernel_category and tt_vendor_neutral_name (sources/kernel_name.h)
 * on real kernel and op names from the fixtures (the H100 and MI300X
 * bert-small traces, the ResNet-50 one), each expected value worked out by
 * hand from the header's word lists. */
#include <string.h>

#include "../common/sources/kernel_name.h"
#include "unit.h"

static void category(const char *name, int is_copy, int dir, int is_memset, const char *want) {
  tt_buf b = {0};
  tt_kernel_category(name, is_copy, dir, is_memset, &b);
  CHECK(strcmp(b.data, want) == 0, "category of \"%.60s\" -> \"%s\" (want \"%s\")", name, b.data, want);
  tt_buf_free(&b);
}

static void neutral(const char *name, const char *want) {
  tt_buf b = {0};
  tt_vendor_neutral_name(name, &b);
  CHECK(strcmp(b.data, want) == 0, "neutral \"%s\" -> \"%s\" (want \"%s\")", name, b.data, want);
  tt_buf_free(&b);
}

int main(void) {
  /* H100 and MI300X GEMMs of one aten::addmm: cutlass, cuBLAS's sm90 xmma, Tensile's Cijk */
  category("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>(...)", 0, 0, 0, "GEMM");
  category("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 0, 0, 0, "GEMM");
  category("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT32x64x128_MI16x16x1_SN_LDSB1", 0, 0, 0, "GEMM");
  /* flash attention on both: "flash" before "gemm" (its template names cutlass) */
  category("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>", 0, 0, 0, "attention");
  category("attn_fwd", 0, 0, 0, "attention");
  category("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float)", 0, 0, 0, "normalization");
  category("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>", 0, 0, 0, "elementwise");
  category("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool>>", 0, 0, 0, "reduction");
  category("void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false>", 0, 0, 0, "softmax");
  category("volta_scudnn_128x64_relu_xregs_large_nn_v1", 0, 0, 0, "convolution");
  category("void implicit_convolve_sgemm<float, float, 128, 6, 7, 3, 3, 5, 1, false, true, true>", 0, 0, 0, "convolution");
  category("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 0, 0, 0, "collective AllReduce");
  category("ncclKernel_ReduceScatter_RING_LL_Sum_float", 0, 0, 0, "collective ReduceScatter");
  category("ncclDevKernel_Reduce_Sum_f32", 0, 0, 0, "collective Reduce");
  category("rcclGenericKernel", 0, 0, 0, "collective");
  category("Memcpy HtoD (Pageable -> Device)", 1, 1, 0, "copy HtoD");
  category("Memcpy DtoD (Device -> Device)", 1, 3, 0, "copy DtoD");
  category("Memcpy", 1, 0, 0, "copy");
  category("Memset (Device)", 0, 0, 1, "memset");
  category("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>", 0, 0, 0, "convolution");
  category("void at::native::unrolled_elementwise_kernel<at::native::convert_kernel>", 0, 0, 0, "elementwise");
  category("some_custom_kernel", 0, 0, 0, "other");
  /* vendors' spellings */
  neutral("aten::cudnn_convolution", "aten::dnn_convolution");
  neutral("aten::miopen_convolution", "aten::dnn_convolution");
  neutral("aten::_cudnn_rnn", "aten::dnn_rnn");
  neutral("aten::miopen_rnn", "aten::dnn_rnn");
  neutral("cudaLaunchKernel", "gpuLaunchKernel");
  neutral("hipLaunchKernel", "gpuLaunchKernel");
  neutral("aten::chip", "aten::chip"); /* "hip" inside a word stays */
  neutral("aten::addmm", "aten::addmm");
  return failures != 0;
}
