// Command protoc is the small protobuf compiler of .ci/protogen: it compiles .proto files with
// protocompile (the parser and linker buf is built on, a far smaller build than buf) and runs
// protoc plugins on them, as `protoc --PLUGIN_out` or `buf generate` does: one
// CodeGeneratorRequest on each plugin's standard input, the files of its response written
// under the output folder.
//
//	protoc -I proto -o OUT -param module=M -plugin PATH [-plugin PATH ...] FILE.proto ...
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/pluginpb"
)

type plugins []string

func (p *plugins) String() string     { return strings.Join(*p, ",") }
func (p *plugins) Set(v string) error { *p = append(*p, v); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "protoc:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		include = flag.String("I", "proto", "the import root of the .proto files")
		out     = flag.String("o", ".", "the folder the plugins' files are written under")
		param   = flag.String("param", "", "the parameter passed to every plugin (e.g. module=...)")
		ps      plugins
	)
	flag.Var(&ps, "plugin", "a plugin executable (repeatable)")
	flag.Parse()
	if flag.NArg() == 0 || len(ps) == 0 {
		return errors.New("want at least one -plugin and one .proto file (relative to -I)")
	}
	req, err := request(*include, *param, flag.Args())
	if err != nil {
		return err
	}
	in, err := proto.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode the request: %w", err)
	}
	for _, p := range ps {
		if err := generate(p, in, *out); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// request compiles files (with their comments, which the generated code carries) and answers
// the plugins' request: the files to generate and every file they import, imports first.
func request(include, param string, files []string) (*pluginpb.CodeGeneratorRequest, error) {
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{include}}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	compiled, err := c.Compile(context.Background(), files...)
	if err != nil {
		return nil, err
	}
	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: files}
	if param != "" {
		req.Parameter = proto.String(param)
	}
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		for i := 0; i < f.Imports().Len(); i++ {
			add(f.Imports().Get(i).FileDescriptor)
		}
		req.ProtoFile = append(req.ProtoFile, protodesc.ToFileDescriptorProto(f))
	}
	for _, f := range compiled {
		add(f)
	}
	return req, nil
}

// generate runs one plugin on the request in and writes the files it answers under out.
func generate(plugin string, in []byte, out string) error {
	cmd := exec.Command(plugin)
	cmd.Stdin = bytes.NewReader(in)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	var res pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(stdout.Bytes(), &res); err != nil {
		return fmt.Errorf("decode its response: %w", err)
	}
	if res.Error != nil {
		return errors.New(res.GetError())
	}
	for _, f := range res.File {
		if f.GetInsertionPoint() != "" {
			return fmt.Errorf("insertion points are not supported (%s)", f.GetName())
		}
		name := filepath.Clean(f.GetName())
		if filepath.IsAbs(name) || strings.HasPrefix(name, "..") {
			return fmt.Errorf("it names a file outside the output folder: %q", f.GetName())
		}
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
