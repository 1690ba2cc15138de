package rpcwire

import (
	_ "embed"

	"github.com/llamactl/llamactl/internal/lang"
)

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// Texts is the package's human texts (data/text.en.json: Error's) in l.
func Texts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }
