package gguf

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
)

// shardRE is llama.cpp's split naming: NAME-00001-of-00005.gguf.
var shardRE = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// maxShards bounds split.count (llama.cpp's gguf-split uses 5 digits).
const maxShards = 9999

// OpenModel reads a model's header; for a split model (split.count > 1)
// it also reads every other shard's header and appends their tensors, so
// the weights are the whole model's. Pass the first shard.
func OpenModel(path string) (*File, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	count, _ := f.uint("split.count")
	if count <= 1 {
		return f, nil
	}
	if count > maxShards {
		return nil, fmt.Errorf("%s: %w: split.count %d", path, ErrLimit, count)
	}
	m := shardRE.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return nil, fmt.Errorf("%s is shard of a %d-part model, but its name is not NAME-00001-of-%05d.gguf, so the other parts cannot be found", path, count, count)
	}
	if no, _ := f.uint("split.no"); no != 0 || m[2] != "00001" {
		return nil, fmt.Errorf("%s is part %s of a split model: pass the first part, %s-00001-of-%s.gguf", path, m[2], m[1], m[3])
	}
	names := map[string]bool{}
	for _, t := range f.Tensors {
		names[t.Name] = true
	}
	for i := uint64(2); i <= count; i++ {
		p := filepath.Join(filepath.Dir(path), fmt.Sprintf("%s-%05d-of-%05d.gguf", m[1], i, count))
		sf, err := Open(p)
		if err != nil {
			return nil, fmt.Errorf("part %d of %d of the split model: %w (download all parts into the same directory)", i, count, err)
		}
		for _, t := range sf.Tensors {
			if names[t.Name] {
				return nil, fmt.Errorf("%w: tensor %q in two parts of the split model", ErrCorrupt, t.Name)
			}
			names[t.Name] = true
			t.Shard = int(i - 1)
			f.Tensors = append(f.Tensors, t)
		}
		f.FileSize += sf.FileSize
	}
	if want, ok := f.uint("split.tensors.count"); ok && want != uint64(len(f.Tensors)) {
		return nil, fmt.Errorf("%w: the split model's parts hold %d tensors, split.tensors.count says %s", ErrCorrupt, len(f.Tensors), strconv.FormatUint(want, 10))
	}
	f.Shards = int(count)
	return f, nil
}
