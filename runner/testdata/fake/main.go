// Command fake is a test program that prints a line that reads as a
// go-plugin handshake, naming an address nobody serves, then waits: the
// host must say that it took that line for a handshake.
package main

import (
	"fmt"
	"time"
)

func main() {
	fmt.Println("1|4|tcp|127.0.0.1:1|grpc")
	time.Sleep(time.Minute)
}
