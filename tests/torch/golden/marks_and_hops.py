SF_INFERENCE_MODE = False


def sf_inputs():
    return {
        "v_x": torch.tensor([-0.6410515904426575, 0.8874809145927429, -1.146878957748413, 1.5312470197677612, 0.9118742346763611, -0.2009606957435608, -0.6231456398963928, 0.2464497685432434, 1.2223689556121826, -1.5940700769424438, 0.5803046226501465, 0.32389187812805176], dtype=torch.float32).reshape([4, 3]),
        "v_m": torch.tensor([True, False, True, True], dtype=torch.bool).reshape([4]),
        "v_k": torch.tensor(2, dtype=torch.int64),
        "v_n": 3,
    }


def sf_mark(inputs):
    torch._dynamo.maybe_mark_dynamic(inputs["v_x"], 0)
    torch._dynamo.mark_static(inputs["v_x"], 1)
    torch._dynamo.decorators.mark_unbacked(inputs["v_m"], 0)


def sf_export_dims(name, value):
    # torch.export has no unbacked Dim: a dim not static is AUTO (export may specialize it).
    modes = {
        "v_x": [torch.export.Dim.AUTO, torch.export.Dim.STATIC],
        "v_m": [torch.export.Dim.AUTO],
    }
    return tuple(modes[name]) if name in modes and modes[name] else None


def v_pos(v_a):
    return sf_fresh((torch.relu(v_a),))


def v_negs(v_a):
    return sf_fresh(((-v_a),))


def v_more(v_i, v_acc):
    return (v_i < 3)


def v_step(v_i, v_acc):
    return sf_fresh(((v_i + 1), (v_acc + 2)))


def sf_program(v_x, v_m, v_k, v_n):
    v_k = v_k.clone().item()
    v_c = 5
    v_r = v_x[v_m]
    torch._check(sf_cond((v_r.size(0) >= 1)), lambda: "sfz check failed: some rows")
    v_t, = torch.cond((v_k > 1), v_pos, v_negs, sf_fresh((v_r,)))
    v_i, v_acc = sf_while_loop(v_more, v_step, sf_fresh((0, v_k)))
    v_s = sf_slice(v_t, 0, 0, v_k, 1)
    return (v_s, sf_reduce(torch.sum, v_t, [1], False), (((v_i + v_acc) + v_n) + v_c), sf_maximum(v_s, 0.5))


if __name__ == "__main__":
    sf_main()
