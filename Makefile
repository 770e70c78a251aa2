# Convenience entry points; each target is one script or tool call.
.PHONY: test demo generate bench bench-host bench-host-i8 bench-mcu size-report clean

# The whole test suite (installs missing Debian packages when run as root).
test:
	scripts/test.sh

# The main job on a bundled model.
demo:
	go run ./cmd/netkit run testdata/models/cnn.nk --top 3

# Regenerate committed test models and the cgo source hash.
generate:
	go generate ./...

# Host benchmarks: Go call overhead, C arena vs malloc.
bench:
	go test -run '^$$' -bench . -benchmem ./nk/ ./nkc/
	cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DNETKIT_BUILD_TESTS=ON >/dev/null
	cmake --build build/bench --target bench_arena
	build/bench/tests/c/bench_arena

# netkit against onnxruntime-node on the Fashion models, one thread, batch 1
# and 100 (installs onnxruntime-node with npm into ~/.cache/netkit).
bench-host:
	scripts/bench-host.sh

# The int8 TFLite models on the host, portable against each SIMD level.
bench-host-i8:
	scripts/bench-host-i8.sh

# Instructions per inference under QEMU (Cortex-M4F, M55): the bundled
# models, then the int8 TFLite models with netkit's fast and portable
# kernels and, when NETKIT_CMSIS_NN_DIR / NETKIT_NMSIS_NN_DIR /
# NETKIT_ESP_NN_DIR name library trees, each vendor backend beside them.
bench-mcu:
	scripts/bench-mcu.sh
	scripts/int8-cross.sh cortex-m4f cortex-m55 $(if $(NETKIT_NMSIS_NN_DIR)$(NETKIT_ESP_NN_DIR),rv32imac) $(if $(NETKIT_ESP_NN_DIR),xtensa-lx106)

# .text/.rodata/.data/.bss of libnetkit per target.
size-report:
	scripts/size-report.sh
	scripts/size-models.sh

clean:
	rm -rf build
