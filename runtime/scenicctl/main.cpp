// SPDX-License-Identifier: MIT
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
    return scenic::ctl::run(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
