// ink imports react-devtools-core only when DEV=true; the binary ships without it.
export default { initialize() {}, connectToDevTools() {} };
