#!/bin/bash
# Call 1: untraced timings (alternating processes) and traces of q, F6, G6.
cd .dev/trace
nvidia-smi -L > $OUT/gpus.txt; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> $OUT/gpus.txt
for k in 1 2; do for v in q F6 G6; do
  ./plain-$v f32 28 256 32 10 p-$v-f32 >> $OUT/plain.txt 2>&1
  ./plain-$v f64 27 128 32 10 p-$v-f64 >> $OUT/plain.txt 2>&1
  ./plain-$v f32 30 256 32 6 p30-$v-f32 >> $OUT/plain.txt 2>&1
done; done
for v in q F6 G6; do
  ./tr-$v f32 28 256 32 2 $OUT/tr-$v-f32 >> $OUT/traced.txt 2>&1
  ./tr-$v f64 27 128 32 2 $OUT/tr-$v-f64 >> $OUT/traced.txt 2>&1
done
cd $OUT && tar cf - *.bin | xz -T16 -3 > traces.tar.xz && rm -f *.bin; ls -la $OUT
