import sys, struct, numpy as np
def load(p):
    d = open(p,'rb').read()
    B, M = struct.unpack('4I', d[:16])[:2]
    o = 16
    tr = np.frombuffer(d, np.uint64, B*M*8, o).reshape(B, M, 8).astype(np.float64); o += B*M*8*8
    tile = np.frombuffer(d, np.uint32, B*M, o).reshape(B, M); o += B*M*4
    end = np.frombuffer(d, np.uint64, B*4, o).reshape(B, 4).astype(np.float64)
    return tr, tile, end
def analyze(p):
    tr, tile, end = load(p)
    B, M, _ = tr.shape
    gt0, gt1, smid, ck1 = end[:,2], end[:,0], end[:,1].astype(int), end[:,3]
    ck0 = tr[:,0,7]
    rate = (ck1-ck0)/(gt1-gt0)  # cycles per ns
    rounds = (tr[:,:,0] > 0).sum(1)
    def g(ev):  # global ns of event
        x = gt0[:,None] + (tr[:,:,ev]-ck0[:,None])/rate[:,None]
        x[tr[:,:,ev]==0] = np.nan
        return x - np.nanmin(gt0)
    E = {e: g(e) for e in (0,1,3,4,5,6)}
    nxt = np.full_like(E[0], np.nan); nxt[:,:-1] = E[0][:,1:]
    lo, hi = 3, None
    ph = {'top>rows': E[1]-E[0], 'rows>bar1': E[3]-E[1], 'bar1 wait': E[4]-E[3], 'bar1>bar2': E[5]-E[4],
          'bar2>next': nxt-E[5], 'round': nxt-E[0], 'looker done>bar1 pass': E[4]-E[6], 'top>looker done': E[6]-E[0]}
    total = (gt1-gt0)
    print(f"{p}: blocks {B}, clock {np.median(rate):.3f} GHz, rounds min/med/max {rounds.min()}/{int(np.median(rounds))}/{rounds.max()}, "
          f"kernel span {(gt1.max()-gt0.min())/1e3:.1f} us, block start spread {(gt0.max()-gt0.min())/1e3:.2f} us, end spread {(gt1.max()-gt1.min())/1e3:.2f} us")
    for k, v in ph.items():
        w = v[:, lo:-3] if True else v
        w = w[~np.isnan(w)]
        w = w[(w > -1e5) & (w < 1e6)]
        print(f"   {k:24s} median {np.median(w):8.0f} ns  mean {np.mean(w):8.0f}  p10 {np.percentile(w,10):8.0f}  p90 {np.percentile(w,90):8.0f}")
    return tr, tile, end, E, rounds, smid
if __name__ == '__main__':
    for p in sys.argv[1:]: analyze(p)
