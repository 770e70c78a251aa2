package nk

/*
#include <stddef.h>
#include "netkit.h"

// sizeof then offsetof of each field, in engine.Layouts' order.
const size_t nk_go_layout_arena[] = { sizeof(nk_arena_t),
	offsetof(nk_arena_t, base), offsetof(nk_arena_t, capacity), offsetof(nk_arena_t, used),
	offsetof(nk_arena_t, high_water), offsetof(nk_arena_t, alloc_count), offsetof(nk_arena_t, fail_at),
	offsetof(nk_arena_t, heap_owned), offsetof(nk_arena_t, reserved) };
const size_t nk_go_layout_error[] = { sizeof(nk_error_t),
	offsetof(nk_error_t, status), offsetof(nk_error_t, op_index), offsetof(nk_error_t, requested),
	offsetof(nk_error_t, free_bytes), offsetof(nk_error_t, capacity), offsetof(nk_error_t, message) };
const size_t nk_go_layout_tensor[] = { sizeof(nk_tensor_t),
	offsetof(nk_tensor_t, name), offsetof(nk_tensor_t, data), offsetof(nk_tensor_t, bytes),
	offsetof(nk_tensor_t, dtype), offsetof(nk_tensor_t, rank), offsetof(nk_tensor_t, dims),
	offsetof(nk_tensor_t, layout), offsetof(nk_tensor_t, quant_zero_point),
	offsetof(nk_tensor_t, quant_scale), offsetof(nk_tensor_t, reserved) };
const size_t nk_go_layout_op_info[] = { sizeof(nk_op_info_t),
	offsetof(nk_op_info_t, op), offsetof(nk_op_info_t, name), offsetof(nk_op_info_t, index),
	offsetof(nk_op_info_t, out_rank), offsetof(nk_op_info_t, out_dims), offsetof(nk_op_info_t, in_rank),
	offsetof(nk_op_info_t, in_dims), offsetof(nk_op_info_t, stage), offsetof(nk_op_info_t, macs),
	offsetof(nk_op_info_t, param_bytes),
	offsetof(nk_op_info_t, act_offset), offsetof(nk_op_info_t, act_bytes),
	offsetof(nk_op_info_t, workspace_bytes), offsetof(nk_op_info_t, in_place),
	offsetof(nk_op_info_t, last_use), offsetof(nk_op_info_t, impl),
	offsetof(nk_op_info_t, input_number), offsetof(nk_op_info_t, input_last_use),
	offsetof(nk_op_info_t, input_offset), offsetof(nk_op_info_t, chunks),
	offsetof(nk_op_info_t, room) };
const size_t nk_go_layout_report[] = { sizeof(nk_report_t),
	offsetof(nk_report_t, arena_after_load), offsetof(nk_report_t, arena_after_forward),
	offsetof(nk_report_t, model_bytes), offsetof(nk_report_t, context_bytes),
	offsetof(nk_report_t, peak_activations), offsetof(nk_report_t, activation_lower_bound),
	offsetof(nk_report_t, pingpong_bytes), offsetof(nk_report_t, workspace),
	offsetof(nk_report_t, flash_payload), offsetof(nk_report_t, file_bytes),
	offsetof(nk_report_t, bytes_structs), offsetof(nk_report_t, bytes_activations),
	offsetof(nk_report_t, bytes_io), offsetof(nk_report_t, bytes_workspace),
	offsetof(nk_report_t, bytes_copied_weights), offsetof(nk_report_t, bytes_padding),
	offsetof(nk_report_t, macs), offsetof(nk_report_t, param_bytes), offsetof(nk_report_t, num_ops),
	offsetof(nk_report_t, num_tensors), offsetof(nk_report_t, num_inputs),
	offsetof(nk_report_t, num_outputs), offsetof(nk_report_t, backend_heap_bytes),
	offsetof(nk_report_t, region_records), offsetof(nk_report_t, region_activations),
	offsetof(nk_report_t, bytes_state) };
*/
import "C"

import "unsafe"

// cLayouts returns sizeof and the field offsets of the C structs that
// engine mirrors, keyed by C type name, as the C compiler lays them out.
func cLayouts() map[string][]uintptr {
	conv := func(p *C.size_t, n int) []uintptr {
		s := unsafe.Slice(p, n)
		out := make([]uintptr, n)
		for i, v := range s {
			out[i] = uintptr(v)
		}
		return out
	}
	return map[string][]uintptr{
		"nk_arena_t":   conv(&C.nk_go_layout_arena[0], len(C.nk_go_layout_arena)),
		"nk_error_t":   conv(&C.nk_go_layout_error[0], len(C.nk_go_layout_error)),
		"nk_tensor_t":  conv(&C.nk_go_layout_tensor[0], len(C.nk_go_layout_tensor)),
		"nk_op_info_t": conv(&C.nk_go_layout_op_info[0], len(C.nk_go_layout_op_info)),
		"nk_report_t":  conv(&C.nk_go_layout_report[0], len(C.nk_go_layout_report)),
	}
}

// cStatusNames returns nk_status_str for every status code.
func cStatusNames() []string {
	names := make([]string, C.NK_ERR_STATE+1)
	for i := range names {
		names[i] = C.GoString(C.nk_status_str(C.nk_status(i)))
	}
	return names
}
