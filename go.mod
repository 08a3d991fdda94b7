module github.com/gcdoctor/gcdoctor

go 1.26.0

require (
	github.com/DataDog/sketches-go v1.4.8 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/prometheus/procfs v0.23.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
