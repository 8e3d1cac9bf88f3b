#pragma once
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"

namespace netcl {

// One convolution layer of a reference network: a plain data row.
struct NamedLayer {
    std::string name;   // "conv3.2"
    ConvShapes shapes;  // N = 1; callers set the batch
    int depth = 1;      // how many times the layer occurs in the network
};

// VGG-16 (network E of Lavin & Gray, Table 3): every 3x3 pad-1 layer shape.
const std::vector<NamedLayer>& vgg16_layers();
// ResNet-50: its distinct 3x3 and 1x1 convolution shapes (bottleneck blocks,
// stride-2 downsampling and projection shortcuts), 224x224 input.
const std::vector<NamedLayer>& resnet50_layers();
// The 5x5 layers of Vincent et al.'s tables (AlexNet; Inception v3).
const std::vector<NamedLayer>& alexnet5x5_layers();
const std::vector<NamedLayer>& inception5x5_layers();
// 3-D (NCDHW): Lan et al.'s v3d (Table 2), C3D's eight layers and the 3x3x3
// layers of a 3-D ResNet-18, on 16 x 112 x 112 clips.
const std::vector<NamedLayer>& v3d_layers();
const std::vector<NamedLayer>& c3d_layers();
const std::vector<NamedLayer>& r3d18_layers();
// "vgg16", "resnet50", "alexnet5x5", "inception5x5", "v3d", "c3d" or "r3d18";
// throws netcl::Error listing the names otherwise.
const std::vector<NamedLayer>& layer_set(const std::string& name);
std::vector<std::string> layer_set_names();

// "N,C,H,W,K,R,S[,stride,pad[,dilation,groups]]" as netcl-info --explain,
// netcl-tune --shape and netcl-bench --shape take it. Throws netcl::Error
// saying which field is wrong.
ConvShapes parse_shape_spec(const std::string& spec);

}  // namespace netcl
