package main

// The -program mode: what `pulumi convert` writes for each language from one program, offline. The program comes as
// PCL (Pulumi's program language: `pulumi convert --from yaml --language pcl` writes it with the YAML converter and
// the pims plugin); it is bound against this package's schema, and each language's program generator of pkg/v3
// (the ones `pulumi convert --language typescript|python|go` run inside the official language hosts) writes the
// project: sources and the manifest naming the packages to install (package.json, requirements.txt, go.mod).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	nodegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

// onePackage resolves the package `pims` (any version) to the bound schema, and nothing else: no plugin is looked
// for, nothing is fetched.
type onePackage struct{ ref schema.PackageReference }

func (l onePackage) reference(name string) (schema.PackageReference, error) {
	if name != l.ref.Name() {
		return nil, fmt.Errorf("the program uses package %q: only %q is known here", name, l.ref.Name())
	}
	return l.ref, nil
}

func (l onePackage) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	ref, err := l.reference(name)
	if err != nil {
		return nil, err
	}
	return ref.Definition()
}

func (l onePackage) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, d.Version)
}

func (l onePackage) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return l.reference(name)
}

func (l onePackage) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return l.reference(d.Name)
}

// convertProgram binds the PCL files of pclDir (and its Pulumi.yaml) against pkg and writes the project of each
// language to out/<language>.
func convertProgram(pkg *schema.Package, pclDir, out string) error {
	project, err := workspace.LoadProject(filepath.Join(pclDir, "Pulumi.yaml"))
	if err != nil {
		return err
	}
	parser := syntax.NewParser()
	names, err := filepath.Glob(filepath.Join(pclDir, "*.pp"))
	if err != nil {
		return err
	}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = parser.ParseFile(f, filepath.Base(name))
		f.Close()
		if err != nil {
			return err
		}
	}
	if parser.Diagnostics.HasErrors() {
		return parser.Diagnostics
	}
	program, diags, err := pcl.BindProgram(parser.Files, onePackage{pkg.Reference()}, pcl.DirPath(pclDir))
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return diags
	}
	writers := map[string]func(dir string) error{
		"nodejs": func(dir string) error { return nodegen.GenerateProject(dir, *project, program, nil, false, "nodejs") },
		"python": func(dir string) error { return pygen.GenerateProject(dir, *project, program, nil, "", "pip") },
		"go":     func(dir string) error { return gogen.GenerateProject(dir, *project, program, nil) },
	}
	for _, language := range []string{"nodejs", "python", "go"} {
		dir := filepath.Join(out, language)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := writers[language](dir); err != nil {
			return fmt.Errorf("%s: %w", language, err)
		}
	}
	return nil
}
