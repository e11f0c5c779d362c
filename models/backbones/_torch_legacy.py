"""Read a legacy (pre-1.6, non-zip) PyTorch state_dict file into numpy arrays without torch.

Only the classes a plain state_dict needs are allowed; anything else is refused."""
import pickle, collections, numpy as np
DT = {'FloatStorage': np.float32, 'LongStorage': np.int64, 'IntStorage': np.int32, 'HalfStorage': np.float16, 'DoubleStorage': np.float64}
class _St:
    def __init__(self, name): self.name = name
class _Ref:
    def __init__(self, key, dtype, numel): self.key, self.dtype, self.numel = key, dtype, numel
class _Lazy:
    def __init__(self, ref, offset, size, stride): self.ref, self.offset, self.size, self.stride = ref, offset, tuple(size), tuple(stride)
def _rebuild(storage, offset, size, stride, *a): return _Lazy(storage, offset, size, stride)
class U(pickle.Unpickler):
    def find_class(self, mod, name):
        if (mod, name) == ('collections', 'OrderedDict'): return collections.OrderedDict
        if mod.startswith('torch') and name.endswith('Storage'): return _St(name)
        if mod.startswith('torch') and name in ('_rebuild_tensor_v2', '_rebuild_tensor'): return _rebuild
        raise pickle.UnpicklingError(f'refusing {mod}.{name}')
    def persistent_load(self, pid):
        typ, st, key, loc, numel, view = pid
        assert typ == 'storage' and view is None
        return _Ref(key, DT[st.name], numel)
def load_legacy(path):
    with open(path, 'rb') as f:
        assert pickle.load(f) == 0x1950a86a20f9469cfc6c
        assert pickle.load(f) == 1001
        pickle.load(f)
        sd = U(f).load()
        refs = {v.ref.key: v.ref for v in sd.values() if isinstance(v, _Lazy)}
        keys = pickle.load(f)
        data = {}
        for k in keys:
            n = int(np.frombuffer(f.read(8), '<i8')[0]); r = refs[k]
            assert n == r.numel
            data[k] = np.frombuffer(f.read(n * np.dtype(r.dtype).itemsize), r.dtype)
        out = collections.OrderedDict()
        for name, v in sd.items():
            a = data[v.ref.key]; it = a.itemsize
            out[name] = np.lib.stride_tricks.as_strided(a[v.offset:], v.size, tuple(s * it for s in v.stride)).copy()
        return out
