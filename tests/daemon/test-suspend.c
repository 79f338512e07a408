#include "test-helpers.h"
int main(void) { return test_summary(); }
