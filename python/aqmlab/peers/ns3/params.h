// The parameter file of the ns-3 peer programs (dumbbell.cc, evaluate.cc): lines of
// "key value...", written by benchmarks/peers (scenarios.py, evaluate_cases.py);
// '#' starts a comment line. A missing or malformed parameter ends the run with
// exit status 2 and names the key.
#pragma once

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

static std::map<std::string, std::vector<std::string>> P;

static void ReadParams(const char* path)
{
    std::ifstream in(path);
    if (!in)
    {
        std::cerr << "cannot read " << path << std::endl;
        std::exit(2);
    }
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream ls(line);
        std::string k, v;
        if (!(ls >> k) || k[0] == '#')
            continue;
        std::vector<std::string> vals;
        while (ls >> v)
            vals.push_back(v);
        P[k] = vals;
    }
}

// Every value of key k.
static const std::vector<std::string>& L(const std::string& k)
{
    auto it = P.find(k);
    if (it == P.end() || it->second.empty())
    {
        std::cerr << "missing parameter " << k << std::endl;
        std::exit(2);
    }
    return it->second;
}
static std::string S(const std::string& k) { return L(k)[0]; }
static double D(const std::string& k) { return std::stod(S(k)); }
static long I(const std::string& k) { return std::stol(S(k)); }
// D(k), or dflt when the file does not set k.
[[maybe_unused]] static double Dopt(const std::string& k, double dflt)
{
    auto it = P.find(k);
    return (it == P.end() || it->second.empty()) ? dflt : std::stod(it->second[0]);
}
// The n values of key k, as numbers.
[[maybe_unused]] static std::vector<double> DL(const std::string& k, size_t n)
{
    std::vector<double> v;
    for (auto& x : L(k))
        v.push_back(std::stod(x));
    if (v.size() != n)
    {
        std::cerr << "parameter " << k << ": expected " << n << " values" << std::endl;
        std::exit(2);
    }
    return v;
}
