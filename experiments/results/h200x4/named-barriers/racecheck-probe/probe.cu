// Does racecheck take bar.arrive -> bar.sync (PTX: "synchronizes with") as ordering?
// mode 0: producer warp writes, bar.arrive 1; consumer warp bar.sync 1, reads; then the reverse on barrier 2.
// mode 1: the same with __syncthreads both ways (control: clean). mode 2: no barrier at all (control: a race).
#include <stdio.h>
#include <stdlib.h>
__global__ void k(int *out, int mode) {
    __shared__ int s[32];
    int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    for (int r = 0; r < 4; r++) {
        if (mode == 1) { if (w == 1) s[l] = r * 100 + l; __syncthreads(); if (w == 0) out[r * 32 + l] = s[l]; __syncthreads(); continue; }
        if (w == 1) {
            s[l] = r * 100 + l;
            if (mode == 0) asm volatile("bar.arrive 1, 64;" ::: "memory");
            if (mode == 0) asm volatile("bar.sync 2, 64;" ::: "memory");
        } else {
            if (mode == 0) asm volatile("bar.sync 1, 64;" ::: "memory");
            out[r * 32 + l] = s[l];
            if (mode == 0) asm volatile("bar.arrive 2, 64;" ::: "memory");
        }
    }
}
int main(int argc, char **argv) {
    int mode = atoi(argv[1]), *d, h[128];
    cudaMalloc(&d, sizeof h);
    k<<<1, 64>>>(d, mode);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < 128; i++) bad += h[i] != (i / 32) * 100 + i % 32;
    printf("mode %d: %d of 128 wrong\n", mode, bad);
    return 0;
}
