// Command hello is the small module gen.sh builds with the go command
// under gcdoctor run, so that its compilers write their gctrace too.
package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
)

func main() {
	u, _ := url.Parse("https://example.com/?q=1")
	json.NewEncoder(os.Stdout).Encode(u.Query())
	fmt.Println(u.Host)
}
