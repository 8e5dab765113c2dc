// The Go SDK suite's harness, copied beside a program's unchanged main.go (package main, whose Pulumi program is the
// function `program`): when PIMS_INLINE_OP is set, init runs `program` as an Automation API inline program (the SDK
// serves it to the engine, so no Go language host is needed; none can be had on these machines) and exits before
// main. Users run the same main.go with plain `pulumi up`.
//
// Environment: PIMS_INLINE_WORKDIR (the project directory, with Pulumi.yaml and the stack's config),
// PIMS_INLINE_STACK, PIMS_INLINE_OP (up | preview | refresh | destroy), PIMS_INLINE_EXPECT_NO_CHANGES=1 (up, preview
// and refresh fail when anything would change, as ProgramTest's checks do). Prints `RESULT <json>`: the stack outputs
// (a secret's value left out, so no token reaches a log) and the resource changes. The engine's output goes to stderr.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

func init() {
	op := os.Getenv("PIMS_INLINE_OP")
	if op == "" {
		return
	}
	if err := runInline(op); err != nil {
		fmt.Fprintln(os.Stderr, "inline:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type shownOutput struct {
	Secret bool `json:"secret"`
	Value  any  `json:"value,omitempty"`
}

func runInline(op string) error {
	ctx := context.Background()
	workDir := os.Getenv("PIMS_INLINE_WORKDIR")
	stack, err := auto.SelectStackInlineSource(ctx, os.Getenv("PIMS_INLINE_STACK"), "", program, auto.WorkDir(workDir))
	if err != nil {
		return err
	}
	result := map[string]any{}
	same := os.Getenv("PIMS_INLINE_EXPECT_NO_CHANGES") == "1"
	switch op {
	case "up":
		opts := []optup.Option{optup.ProgressStreams(os.Stderr), optup.SuppressOutputs()}
		if same {
			opts = append(opts, optup.ExpectNoChanges())
		}
		res, err := stack.Up(ctx, opts...)
		if err != nil {
			return err
		}
		outputs := map[string]shownOutput{}
		for name, out := range res.Outputs {
			if out.Secret {
				outputs[name] = shownOutput{Secret: true}
			} else {
				outputs[name] = shownOutput{Value: out.Value}
			}
		}
		result["outputs"] = outputs
		result["changes"] = res.Summary.ResourceChanges
	case "preview":
		opts := []optpreview.Option{optpreview.ProgressStreams(os.Stderr)}
		if same {
			opts = append(opts, optpreview.ExpectNoChanges())
		}
		res, err := stack.Preview(ctx, opts...)
		if err != nil {
			return err
		}
		result["changes"] = res.ChangeSummary
	case "refresh":
		opts := []optrefresh.Option{optrefresh.ProgressStreams(os.Stderr)}
		if same {
			opts = append(opts, optrefresh.ExpectNoChanges())
		}
		res, err := stack.Refresh(ctx, opts...)
		if err != nil {
			return err
		}
		result["changes"] = res.Summary.ResourceChanges
	case "destroy":
		res, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
		if err != nil {
			return err
		}
		result["changes"] = res.Summary.ResourceChanges
	default:
		return fmt.Errorf("unknown operation %q", op)
	}
	line, err := json.Marshal(result)
	if err != nil {
		return err
	}
	fmt.Println("RESULT " + string(line))
	return nil
}
