package main

const isDarwin = true
