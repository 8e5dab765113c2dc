module pims-multi-account

go 1.25

require (
	github.com/pulumi/pulumi/sdk/v3 v3.259.0
	pulumi-pims/sdk/go v0.8.0
)
