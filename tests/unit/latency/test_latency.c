#include <stddef.h>
int main(void){return 0;}
