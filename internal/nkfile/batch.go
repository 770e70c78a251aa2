package nkfile

// MetaBatch is the META key of a batch model (netkit convert --batch N):
// its value N, in decimal, is the number of samples one invoke runs. Every
// graph input and output then leads with a dimension of N, so callers split
// them into samples. A model without it runs one sample per invoke.
const MetaBatch = "batch"
