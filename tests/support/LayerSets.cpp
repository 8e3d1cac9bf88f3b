#include "tests/support/LayerSets.hpp"

#include <charconv>

#include "netcl/Error.hpp"

namespace netcl {

namespace {

ConvShapes conv(std::int64_t C, std::int64_t HW, std::int64_t K, std::int64_t RS, std::int64_t stride, std::int64_t pad) {
    ConvShapes s;
    s.N = 1;
    s.C = C;
    s.H = s.W = HW;
    s.K = K;
    s.R = s.S = RS;
    s.stride_h = s.stride_w = stride;
    s.set_padding(pad);
    return s;
}

// A 3x3x3 (or T x RS x RS) layer on a C x D x HW x HW clip, the same stride
// and padding on every axis unless `depth_stride`/`depth_pad` say otherwise.
ConvShapes conv3d(std::int64_t C, std::int64_t D, std::int64_t HW, std::int64_t K, std::int64_t stride = 1,
                  std::int64_t pad = 1, std::int64_t T = 3, std::int64_t RS = 3) {
    ConvShapes s = conv(C, HW, K, RS, stride, pad);
    s.spatial_rank = 3;
    s.D = D, s.T = T, s.stride_d = stride, s.pad_front = s.pad_back = pad;
    return s;
}

}  // namespace

const std::vector<NamedLayer>& v3d_layers() {
    // Lan et al. Table 2 (their batch: 32): C x D x H x W, K; 3x3x3, padding 1.
    static const std::vector<NamedLayer> layers = {
        {"conv1", conv3d(3, 16, 112, 32), 1},  {"conv2", conv3d(32, 16, 56, 64), 1},
        {"conv3", conv3d(64, 8, 28, 256), 1},  {"conv4", conv3d(256, 4, 14, 256), 1},
        {"conv5", conv3d(256, 2, 7, 256), 1},
    };
    return layers;
}

const std::vector<NamedLayer>& c3d_layers() {
    // C3D (Tran et al. 2015) on 16 x 112 x 112 clips: eight 3x3x3 pad-1
    // layers; pool1 halves H and W only, pools 2-4 every axis.
    static const std::vector<NamedLayer> layers = {
        {"conv1a", conv3d(3, 16, 112, 64), 1},  {"conv2a", conv3d(64, 16, 56, 128), 1},
        {"conv3a", conv3d(128, 8, 28, 256), 1}, {"conv3b", conv3d(256, 8, 28, 256), 1},
        {"conv4a", conv3d(256, 4, 14, 512), 1}, {"conv4b", conv3d(512, 4, 14, 512), 1},
        {"conv5a", conv3d(512, 2, 7, 512), 1},  {"conv5b", conv3d(512, 2, 7, 512), 1},
    };
    return layers;
}

const std::vector<NamedLayer>& r3d18_layers() {
    // The 3x3x3 layers of a 3-D ResNet-18 (torchvision's r3d_18) on 16 x 112
    // x 112 clips, after its 3x7x7 stride-(1,2,2) stem: the first block of
    // stages 2-4 has stride 2 on every axis; the 1x1x1 projections are left out.
    static const std::vector<NamedLayer> layers = {
        {"layer1", conv3d(64, 16, 56, 64), 4},
        {"layer2.stride2", conv3d(64, 16, 56, 128, 2), 1},  {"layer2", conv3d(128, 8, 28, 128), 3},
        {"layer3.stride2", conv3d(128, 8, 28, 256, 2), 1},  {"layer3", conv3d(256, 4, 14, 256), 3},
        {"layer4.stride2", conv3d(256, 4, 14, 512, 2), 1},  {"layer4", conv3d(512, 2, 7, 512), 3},
    };
    return layers;
}

const std::vector<NamedLayer>& vgg16_layers() {
    // Lavin & Gray Table 3: C x H x W, K, depth; 3x3 filters, stride 1, pad 1.
    static const std::vector<NamedLayer> layers = {
        {"conv1.1", conv(3, 224, 64, 3, 1, 1), 1},    {"conv1.2", conv(64, 224, 64, 3, 1, 1), 1},
        {"conv2.1", conv(64, 112, 128, 3, 1, 1), 1},  {"conv2.2", conv(128, 112, 128, 3, 1, 1), 1},
        {"conv3.1", conv(128, 56, 256, 3, 1, 1), 1},  {"conv3.2", conv(256, 56, 256, 3, 1, 1), 3},
        {"conv4.1", conv(256, 28, 512, 3, 1, 1), 1},  {"conv4.2", conv(512, 28, 512, 3, 1, 1), 3},
        {"conv5", conv(512, 14, 512, 3, 1, 1), 4},
    };
    return layers;
}

const std::vector<NamedLayer>& resnet50_layers() {
    // Distinct shapes of ResNet-50 v1.5 (stride 2 on the 3x3 of the first block
    // of stages 3-5); depth counts occurrences in the network.
    static const std::vector<NamedLayer> layers = {
        {"conv1", conv(3, 224, 64, 7, 2, 3), 1},
        // stage 2 (56x56)
        {"res2.reduce.first", conv(64, 56, 64, 1, 1, 0), 1},
        {"res2.reduce", conv(256, 56, 64, 1, 1, 0), 2},
        {"res2.3x3", conv(64, 56, 64, 3, 1, 1), 3},
        {"res2.expand+projection", conv(64, 56, 256, 1, 1, 0), 4},  // the shortcut has the expand's shape
        // stage 3 (28x28)
        {"res3.reduce.first", conv(256, 56, 128, 1, 1, 0), 1},
        {"res3.3x3.stride2", conv(128, 56, 128, 3, 2, 1), 1},
        {"res3.projection", conv(256, 56, 512, 1, 2, 0), 1},
        {"res3.reduce", conv(512, 28, 128, 1, 1, 0), 3},
        {"res3.3x3", conv(128, 28, 128, 3, 1, 1), 3},
        {"res3.expand", conv(128, 28, 512, 1, 1, 0), 4},
        // stage 4 (14x14)
        {"res4.reduce.first", conv(512, 28, 256, 1, 1, 0), 1},
        {"res4.3x3.stride2", conv(256, 28, 256, 3, 2, 1), 1},
        {"res4.projection", conv(512, 28, 1024, 1, 2, 0), 1},
        {"res4.reduce", conv(1024, 14, 256, 1, 1, 0), 5},
        {"res4.3x3", conv(256, 14, 256, 3, 1, 1), 5},
        {"res4.expand", conv(256, 14, 1024, 1, 1, 0), 6},
        // stage 5 (7x7)
        {"res5.reduce.first", conv(1024, 14, 512, 1, 1, 0), 1},
        {"res5.3x3.stride2", conv(512, 14, 512, 3, 2, 1), 1},
        {"res5.projection", conv(1024, 14, 2048, 1, 2, 0), 1},
        {"res5.reduce", conv(2048, 7, 512, 1, 1, 0), 2},
        {"res5.3x3", conv(512, 7, 512, 3, 1, 1), 2},
        {"res5.expand", conv(512, 7, 2048, 1, 1, 0), 3},
    };
    return layers;
}

const std::vector<NamedLayer>& alexnet5x5_layers() {
    // Vincent et al. Section 4 (their batch: 32): H/W 27, pad 2, C 48, K 128.
    static const std::vector<NamedLayer> layers = {{"alexnet.5x5", conv(48, 27, 128, 5, 1, 2), 1}};
    return layers;
}

const std::vector<NamedLayer>& inception5x5_layers() {
    // Vincent et al. Section 4 (their batch: 32): H/W 35, pad 2, C 48, K 64.
    static const std::vector<NamedLayer> layers = {{"inception.5x5", conv(48, 35, 64, 5, 1, 2), 1}};
    return layers;
}

std::vector<std::string> layer_set_names() {
    return {"vgg16", "resnet50", "alexnet5x5", "inception5x5", "v3d", "c3d", "r3d18"};
}

const std::vector<NamedLayer>& layer_set(const std::string& name) {
    if (name == "vgg16") return vgg16_layers();
    if (name == "resnet50") return resnet50_layers();
    if (name == "alexnet5x5") return alexnet5x5_layers();
    if (name == "inception5x5") return inception5x5_layers();
    if (name == "v3d") return v3d_layers();
    if (name == "c3d") return c3d_layers();
    if (name == "r3d18") return r3d18_layers();
    throw Error("unknown layer set '" + name + "'; expected vgg16, resnet50, alexnet5x5, inception5x5, v3d, c3d or r3d18");
}

ConvShapes parse_shape_spec(const std::string& spec) {
    static const char* const names[] = {"N", "C", "H", "W", "K", "R", "S", "stride", "pad", "dilation", "groups"};
    std::vector<std::int64_t> values;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = spec.find(',', start);
        const std::string field = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const std::size_t index = values.size();
        if (index >= 11) {
            throw Error("shape '" + spec + "' has more than 11 fields; expected N,C,H,W,K,R,S[,stride,pad[,dilation,groups]]");
        }
        std::int64_t value = 0;
        const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
        if (field.empty() || ec != std::errc() || end != field.data() + field.size()) {
            throw Error("shape '" + spec + "': field " + names[index] + " is '" + field +
                        "', not an integer; expected N,C,H,W,K,R,S[,stride,pad[,dilation,groups]]");
        }
        values.push_back(value);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (values.size() != 7 && values.size() != 9 && values.size() != 11) {
        throw Error("shape '" + spec + "' has " + std::to_string(values.size()) +
                    " fields; expected 7 (N,C,H,W,K,R,S), 9 (+stride,pad) or 11 (+stride,pad,dilation,groups)");
    }
    ConvShapes s;
    s.N = values[0];
    s.C = values[1];
    s.H = values[2];
    s.W = values[3];
    s.K = values[4];
    s.R = values[5];
    s.S = values[6];
    if (values.size() >= 9) {
        s.stride_h = s.stride_w = values[7];
        s.set_padding(values[8]);
    }
    if (values.size() == 11) {
        s.dilation_h = s.dilation_w = values[9];
        s.groups = values[10];
    }
    s.validate();
    return s;
}

}  // namespace netcl
